CREATE TABLE `user_otp_state` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`last_used_step` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
