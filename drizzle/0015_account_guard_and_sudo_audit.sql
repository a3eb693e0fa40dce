CREATE TABLE `sign_in_addresses` (
	`user_id` integer NOT NULL,
	`address` text NOT NULL,
	`last_sign_in_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `address`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `audit_events` ADD `impersonator_id` integer;