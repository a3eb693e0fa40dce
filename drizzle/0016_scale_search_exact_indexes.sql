CREATE INDEX `users_name_lower_idx` ON `users` (lower("name"));--> statement-breakpoint
CREATE INDEX `groups_name_lower_idx` ON `groups` (lower("name"));--> statement-breakpoint
CREATE INDEX `groups_path_lower_idx` ON `groups` (lower("path"));--> statement-breakpoint
CREATE INDEX `projects_name_lower_idx` ON `projects` (lower("name"));--> statement-breakpoint
CREATE INDEX `projects_path_lower_idx` ON `projects` (lower("path"));