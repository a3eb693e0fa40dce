CREATE TABLE `oauth_client_assertion_jtis` (
	`application_id` integer NOT NULL,
	`jti` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`application_id`, `jti`),
	FOREIGN KEY (`application_id`) REFERENCES `oauth_applications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `oauth_client_assertion_jtis_expiry_idx` ON `oauth_client_assertion_jtis` (`expires_at`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_oauth_token_families` (
	`id` text PRIMARY KEY NOT NULL,
	`application_id` integer,
	`user_id` integer,
	`grant_type` text NOT NULL,
	`scopes` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`application_id`) REFERENCES `oauth_applications`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_oauth_token_families`("id", "application_id", "user_id", "grant_type", "scopes", "status", "created_at", "revoked_at") SELECT "id", "application_id", "user_id", "grant_type", "scopes", "status", "created_at", "revoked_at" FROM `oauth_token_families`;--> statement-breakpoint
DROP TABLE `oauth_token_families`;--> statement-breakpoint
ALTER TABLE `__new_oauth_token_families` RENAME TO `oauth_token_families`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `oauth_families_user_app_idx` ON `oauth_token_families` (`user_id`,`application_id`);--> statement-breakpoint
CREATE INDEX `oauth_families_app_idx` ON `oauth_token_families` (`application_id`);--> statement-breakpoint
ALTER TABLE `oauth_applications` ADD `jwks` text;--> statement-breakpoint
ALTER TABLE `oauth_applications` ADD `jwks_uri` text;--> statement-breakpoint
ALTER TABLE `oauth_applications` ADD `token_endpoint_auth_method` text;