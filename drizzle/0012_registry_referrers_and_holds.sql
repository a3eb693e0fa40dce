ALTER TABLE `registry_blobs` ADD `held_until` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `registry_manifests` ADD `subject_digest` text;--> statement-breakpoint
ALTER TABLE `registry_manifests` ADD `artifact_type` text;--> statement-breakpoint
ALTER TABLE `registry_manifests` ADD `annotations` text;--> statement-breakpoint
CREATE INDEX `registry_manifests_subject_idx` ON `registry_manifests` (`repository_id`,`subject_digest`,`digest`);