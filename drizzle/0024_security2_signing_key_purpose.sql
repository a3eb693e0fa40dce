DROP INDEX `oidc_keys_one_active`;--> statement-breakpoint
DROP INDEX `oidc_keys_one_next`;--> statement-breakpoint
ALTER TABLE `oidc_signing_keys` ADD `purpose` text DEFAULT 'oidc' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `signing_keys_one_active_per_purpose` ON `oidc_signing_keys` (`purpose`,`state`) WHERE state = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX `signing_keys_one_next_per_purpose` ON `oidc_signing_keys` (`purpose`,`state`) WHERE state = 'next';