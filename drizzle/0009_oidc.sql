CREATE TABLE `oauth_device_grants` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`device_code_hash` text NOT NULL,
	`user_code_hash` text NOT NULL,
	`application_id` integer NOT NULL,
	`scopes` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`user_id` integer,
	`auth_time` integer,
	`interval_seconds` integer NOT NULL,
	`last_polled_at` integer,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_device_grants_device_code_hash_unique` ON `oauth_device_grants` (`device_code_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_device_grants_user_code_hash_unique` ON `oauth_device_grants` (`user_code_hash`);--> statement-breakpoint
CREATE INDEX `device_grants_expiry_idx` ON `oauth_device_grants` (`expires_at`);--> statement-breakpoint
CREATE TABLE `oidc_signing_keys` (
	`kid` text PRIMARY KEY NOT NULL,
	`alg` text DEFAULT 'RS256' NOT NULL,
	`public_jwk` text NOT NULL,
	`private_key_enc` text NOT NULL,
	`state` text NOT NULL,
	`created_at` integer NOT NULL,
	`activated_at` integer,
	`retire_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oidc_keys_one_active` ON `oidc_signing_keys` (`state`) WHERE state = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX `oidc_keys_one_next` ON `oidc_signing_keys` (`state`) WHERE state = 'next';--> statement-breakpoint
CREATE INDEX `oidc_keys_state_idx` ON `oidc_signing_keys` (`state`);--> statement-breakpoint
ALTER TABLE `oauth_applications` ADD `dynamic` integer DEFAULT false NOT NULL;