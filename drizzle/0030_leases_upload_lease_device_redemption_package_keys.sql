ALTER TABLE `oauth_device_grants` ADD `sealed_response` text;--> statement-breakpoint
ALTER TABLE `oauth_device_grants` ADD `redeemed_at` integer;--> statement-breakpoint
ALTER TABLE `registry_uploads` ADD `lease_holder` text;--> statement-breakpoint
CREATE INDEX `package_files_r2_key_idx` ON `package_files` (`r2_key`);