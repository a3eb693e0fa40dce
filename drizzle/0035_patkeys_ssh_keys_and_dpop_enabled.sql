CREATE TABLE `ssh_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`title` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`fingerprint_sha256` text NOT NULL,
	`usage_type` text DEFAULT 'auth_and_signing' NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ssh_keys_user_idx` ON `ssh_keys` (`user_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `ssh_keys_fingerprint_sha256_idx` ON `ssh_keys` (`fingerprint_sha256`);--> statement-breakpoint
ALTER TABLE `users` ADD `dpop_enabled` integer DEFAULT false NOT NULL;