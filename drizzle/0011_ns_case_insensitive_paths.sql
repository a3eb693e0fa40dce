DROP INDEX `users_username_unique`;--> statement-breakpoint
DROP INDEX `users_email_unique`;--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_lower_idx` ON `users` (lower("username"));--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_lower_idx` ON `users` (lower("email"));--> statement-breakpoint
DROP INDEX `groups_full_path_unique`;--> statement-breakpoint
CREATE UNIQUE INDEX `groups_full_path_lower_idx` ON `groups` (lower("full_path"));--> statement-breakpoint
DROP INDEX `projects_path_with_namespace_unique`;--> statement-breakpoint
CREATE UNIQUE INDEX `projects_path_with_namespace_lower_idx` ON `projects` (lower("path_with_namespace"));