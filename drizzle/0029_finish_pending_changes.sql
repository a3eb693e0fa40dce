CREATE TABLE `pending_changes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`subject` text NOT NULL,
	`payload` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`last_attempt_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pending_changes_kind_subject_idx` ON `pending_changes` (`kind`,`subject`);--> statement-breakpoint
CREATE INDEX `pending_changes_created_idx` ON `pending_changes` (`created_at`);