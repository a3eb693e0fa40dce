CREATE TABLE `plugin_call_results` (
	`user_id` integer NOT NULL,
	`uuid` text NOT NULL,
	`request_hash` text NOT NULL,
	`res` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `uuid`)
);
--> statement-breakpoint
CREATE INDEX `plugin_call_results_created_idx` ON `plugin_call_results` (`created_at`);--> statement-breakpoint
CREATE TABLE `plugin_files` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` integer NOT NULL,
	`name` text NOT NULL,
	`purpose` text NOT NULL,
	`size` integer NOT NULL,
	`sha256` text NOT NULL,
	`key` text NOT NULL,
	`processing` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `plugin_files_owner_idx` ON `plugin_files` (`owner_id`);--> statement-breakpoint
CREATE TABLE `plugins` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`owner_id` integer NOT NULL,
	`endpoint` text DEFAULT '' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `plugins_name_unique` ON `plugins` (`name`);--> statement-breakpoint
CREATE INDEX `plugins_owner_idx` ON `plugins` (`owner_id`);