CREATE TABLE `oauth_token_families` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` integer,
	`user_id` integer NOT NULL,
	`grant_type` text NOT NULL,
	`scopes` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`application_id`) REFERENCES `oauth_applications`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `oauth_families_user_app_idx` ON `oauth_token_families` (`user_id`,`application_id`);--> statement-breakpoint
CREATE INDEX `oauth_families_app_idx` ON `oauth_token_families` (`application_id`);