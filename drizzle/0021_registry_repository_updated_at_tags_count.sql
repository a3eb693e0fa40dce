ALTER TABLE `registry_repositories` ADD `updated_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `registry_repositories` ADD `tags_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `registry_repositories_project_updated_idx` ON `registry_repositories` (`project_id`,`updated_at`,`id`);