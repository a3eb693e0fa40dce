CREATE TABLE `oidc_backchannel_logouts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`application_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`sid` text NOT NULL,
	`jti` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`application_id`) REFERENCES `oauth_applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oidc_backchannel_logouts_app_sid_idx` ON `oidc_backchannel_logouts` (`application_id`,`sid`);--> statement-breakpoint
CREATE INDEX `oidc_backchannel_logouts_due_idx` ON `oidc_backchannel_logouts` (`status`,`next_attempt_at`);--> statement-breakpoint
ALTER TABLE `sessions` ADD `sid` text;--> statement-breakpoint
CREATE UNIQUE INDEX `sessions_sid_idx` ON `sessions` (`sid`);--> statement-breakpoint
ALTER TABLE `oauth_applications` ADD `post_logout_redirect_uris` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `oauth_applications` ADD `backchannel_logout_uri` text;--> statement-breakpoint
ALTER TABLE `oauth_applications` ADD `backchannel_logout_session_required` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `oauth_token_families` ADD `sid` text;--> statement-breakpoint
CREATE INDEX `oauth_families_sid_idx` ON `oauth_token_families` (`sid`);