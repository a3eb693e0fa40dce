-- Registry repositories keep their tag count and update time (src/db/schema/registry.ts): a
-- repository listing reads tags_count from the row instead of counting every tag (issue 23), and
-- GraphQL's ContainerRepository.updatedAt and its UPDATED_* sorts have a time to read.
-- The triggers keep both for every writer (the /v2/ push, deletes, tests' and benchmarks' raw inserts).
UPDATE `registry_repositories` SET
  `tags_count` = (SELECT count(*) FROM `registry_tags` t WHERE t.`repository_id` = `registry_repositories`.`id`),
  `updated_at` = max(`created_at`, coalesce((SELECT max(t.`created_at`) FROM `registry_tags` t WHERE t.`repository_id` = `registry_repositories`.`id`), 0));
--> statement-breakpoint
CREATE TRIGGER `registry_tags_counted_insert` AFTER INSERT ON `registry_tags` BEGIN
  UPDATE `registry_repositories` SET `tags_count` = `tags_count` + 1, `updated_at` = max(`updated_at`, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` = new.`repository_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `registry_tags_counted_delete` AFTER DELETE ON `registry_tags` BEGIN
  UPDATE `registry_repositories` SET `tags_count` = `tags_count` - 1, `updated_at` = max(`updated_at`, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` = old.`repository_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `registry_tags_moved` AFTER UPDATE OF `digest` ON `registry_tags` BEGIN
  UPDATE `registry_repositories` SET `updated_at` = max(`updated_at`, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` = new.`repository_id`;
END;
