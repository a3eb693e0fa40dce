-- Search without reading every row (docs/scaling.md, "Search"; src/db/search.ts): one FTS5 table
-- with the trigram tokenizer per searched table, an external-content index over the table's own
-- rows (rowid = id), so a ?search= word of three or more characters is found as a case-insensitive
-- substring through the index. Triggers keep each index in step with inserts, updates of the
-- indexed columns and deletes (foreign-key cascades included); 'rebuild' indexes the existing rows.
CREATE VIRTUAL TABLE `users_fts` USING fts5(username, name, content='users', content_rowid='id', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `users_fts_insert` AFTER INSERT ON `users` BEGIN
  INSERT INTO `users_fts`(rowid, username, name) VALUES (new.id, new.username, new.name);
END;
--> statement-breakpoint
CREATE TRIGGER `users_fts_delete` AFTER DELETE ON `users` BEGIN
  INSERT INTO `users_fts`(`users_fts`, rowid, username, name) VALUES ('delete', old.id, old.username, old.name);
END;
--> statement-breakpoint
CREATE TRIGGER `users_fts_update` AFTER UPDATE OF username, name ON `users` BEGIN
  INSERT INTO `users_fts`(`users_fts`, rowid, username, name) VALUES ('delete', old.id, old.username, old.name);
  INSERT INTO `users_fts`(rowid, username, name) VALUES (new.id, new.username, new.name);
END;
--> statement-breakpoint
INSERT INTO `users_fts`(`users_fts`) VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE `projects_fts` USING fts5(name, path, description, path_with_namespace, content='projects', content_rowid='id', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `projects_fts_insert` AFTER INSERT ON `projects` BEGIN
  INSERT INTO `projects_fts`(rowid, name, path, description, path_with_namespace) VALUES (new.id, new.name, new.path, new.description, new.path_with_namespace);
END;
--> statement-breakpoint
CREATE TRIGGER `projects_fts_delete` AFTER DELETE ON `projects` BEGIN
  INSERT INTO `projects_fts`(`projects_fts`, rowid, name, path, description, path_with_namespace) VALUES ('delete', old.id, old.name, old.path, old.description, old.path_with_namespace);
END;
--> statement-breakpoint
CREATE TRIGGER `projects_fts_update` AFTER UPDATE OF name, path, description, path_with_namespace ON `projects` BEGIN
  INSERT INTO `projects_fts`(`projects_fts`, rowid, name, path, description, path_with_namespace) VALUES ('delete', old.id, old.name, old.path, old.description, old.path_with_namespace);
  INSERT INTO `projects_fts`(rowid, name, path, description, path_with_namespace) VALUES (new.id, new.name, new.path, new.description, new.path_with_namespace);
END;
--> statement-breakpoint
INSERT INTO `projects_fts`(`projects_fts`) VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE `groups_fts` USING fts5(name, path, full_path, content='groups', content_rowid='id', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `groups_fts_insert` AFTER INSERT ON `groups` BEGIN
  INSERT INTO `groups_fts`(rowid, name, path, full_path) VALUES (new.id, new.name, new.path, new.full_path);
END;
--> statement-breakpoint
CREATE TRIGGER `groups_fts_delete` AFTER DELETE ON `groups` BEGIN
  INSERT INTO `groups_fts`(`groups_fts`, rowid, name, path, full_path) VALUES ('delete', old.id, old.name, old.path, old.full_path);
END;
--> statement-breakpoint
CREATE TRIGGER `groups_fts_update` AFTER UPDATE OF name, path, full_path ON `groups` BEGIN
  INSERT INTO `groups_fts`(`groups_fts`, rowid, name, path, full_path) VALUES ('delete', old.id, old.name, old.path, old.full_path);
  INSERT INTO `groups_fts`(rowid, name, path, full_path) VALUES (new.id, new.name, new.path, new.full_path);
END;
--> statement-breakpoint
INSERT INTO `groups_fts`(`groups_fts`) VALUES ('rebuild');
