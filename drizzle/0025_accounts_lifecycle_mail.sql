CREATE TABLE `mail_outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`from_address` text NOT NULL,
	`to_address` text NOT NULL,
	`subject` text NOT NULL,
	`body_text` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mail_outbox_created_idx` ON `mail_outbox` (`created_at`);--> statement-breakpoint
ALTER TABLE `users` ADD `password_expires_at` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `reset_password_token_hash` text;--> statement-breakpoint
ALTER TABLE `users` ADD `reset_password_sent_at` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `unconfirmed_email` text;--> statement-breakpoint
ALTER TABLE `users` ADD `confirmation_token_hash` text;--> statement-breakpoint
ALTER TABLE `users` ADD `confirmation_sent_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `users_reset_password_token_idx` ON `users` (`reset_password_token_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_confirmation_token_idx` ON `users` (`confirmation_token_hash`);