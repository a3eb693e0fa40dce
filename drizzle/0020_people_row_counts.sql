-- Row counts of projects and groups, whole and per visibility, kept by triggers (docs/scaling.md,
-- "Listings"). GET /projects and /groups read their totals from here when a branch of the listing
-- is a whole visibility (or the whole table for an administrator), instead of counting up to
-- GitLab's 10,000 through an index on every request.
CREATE TABLE `row_counts` (`name` text PRIMARY KEY NOT NULL, `n` integer NOT NULL) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `row_counts` (`name`, `n`) SELECT 'projects', count(*) FROM `projects`;
--> statement-breakpoint
INSERT INTO `row_counts` (`name`, `n`) SELECT 'groups', count(*) FROM `groups`;
--> statement-breakpoint
INSERT INTO `row_counts` (`name`, `n`)
  SELECT 'projects:' || v.visibility, (SELECT count(*) FROM `projects` WHERE `visibility` = v.visibility)
  FROM (SELECT 'public' AS visibility UNION ALL SELECT 'internal' UNION ALL SELECT 'private') v;
--> statement-breakpoint
INSERT INTO `row_counts` (`name`, `n`)
  SELECT 'groups:' || v.visibility, (SELECT count(*) FROM `groups` WHERE `visibility` = v.visibility)
  FROM (SELECT 'public' AS visibility UNION ALL SELECT 'internal' UNION ALL SELECT 'private') v;
--> statement-breakpoint
CREATE TRIGGER `projects_row_count_insert` AFTER INSERT ON `projects` BEGIN
  UPDATE `row_counts` SET `n` = `n` + 1 WHERE `name` IN ('projects', 'projects:' || NEW.`visibility`);
END;
--> statement-breakpoint
CREATE TRIGGER `projects_row_count_delete` AFTER DELETE ON `projects` BEGIN
  UPDATE `row_counts` SET `n` = `n` - 1 WHERE `name` IN ('projects', 'projects:' || OLD.`visibility`);
END;
--> statement-breakpoint
CREATE TRIGGER `projects_row_count_visibility` AFTER UPDATE OF `visibility` ON `projects` WHEN OLD.`visibility` IS NOT NEW.`visibility` BEGIN
  UPDATE `row_counts` SET `n` = `n` - 1 WHERE `name` = 'projects:' || OLD.`visibility`;
  UPDATE `row_counts` SET `n` = `n` + 1 WHERE `name` = 'projects:' || NEW.`visibility`;
END;
--> statement-breakpoint
CREATE TRIGGER `groups_row_count_insert` AFTER INSERT ON `groups` BEGIN
  UPDATE `row_counts` SET `n` = `n` + 1 WHERE `name` IN ('groups', 'groups:' || NEW.`visibility`);
END;
--> statement-breakpoint
CREATE TRIGGER `groups_row_count_delete` AFTER DELETE ON `groups` BEGIN
  UPDATE `row_counts` SET `n` = `n` - 1 WHERE `name` IN ('groups', 'groups:' || OLD.`visibility`);
END;
--> statement-breakpoint
CREATE TRIGGER `groups_row_count_visibility` AFTER UPDATE OF `visibility` ON `groups` WHEN OLD.`visibility` IS NOT NEW.`visibility` BEGIN
  UPDATE `row_counts` SET `n` = `n` - 1 WHERE `name` = 'groups:' || OLD.`visibility`;
  UPDATE `row_counts` SET `n` = `n` + 1 WHERE `name` = 'groups:' || NEW.`visibility`;
END;
