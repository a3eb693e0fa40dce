ALTER TABLE `oauth_applications` ADD `registration_token_hash` text;--> statement-breakpoint
ALTER TABLE `oauth_applications` ADD `application_type` text;--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_applications_registration_token_hash_unique` ON `oauth_applications` (`registration_token_hash`);