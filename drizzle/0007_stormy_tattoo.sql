CREATE TABLE `oauth_pending_authorizations` (
	`id` text PRIMARY KEY NOT NULL,
	`query` text NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `oauth_pending_expires_idx` ON `oauth_pending_authorizations` (`expires_at`);