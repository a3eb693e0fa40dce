CREATE TABLE `oauth_pushed_requests` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`application_id` integer NOT NULL,
	`query` text NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `oauth_applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `oauth_pushed_requests_expires_idx` ON `oauth_pushed_requests` (`expires_at`);--> statement-breakpoint
ALTER TABLE `oauth_applications` ADD `require_pushed_authorization_requests` integer DEFAULT false NOT NULL;