DROP INDEX `members_user_idx`;--> statement-breakpoint
CREATE INDEX `members_user_source_idx` ON `members` (`user_id`,`source_type`,`source_id`);