CREATE TABLE `iterations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`iid` integer NOT NULL,
	`group_id` integer NOT NULL,
	`title` text,
	`description` text DEFAULT '' NOT NULL,
	`start_date` text NOT NULL,
	`due_date` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `iterations_group_idx` ON `iterations` (`group_id`,`start_date`);--> statement-breakpoint
CREATE TABLE `managed_licenses` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`approval_status` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `managed_licenses_project_name_idx` ON `managed_licenses` (`project_id`,`name`);--> statement-breakpoint
CREATE TABLE `merge_requests` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`iid` integer NOT NULL,
	`project_id` integer NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`state` text DEFAULT 'opened' NOT NULL,
	`source_branch` text NOT NULL,
	`target_branch` text NOT NULL,
	`author_id` integer NOT NULL,
	`assignee_id` integer,
	`merge_user_id` integer,
	`merged_at` integer,
	`closed_at` integer,
	`sha` text NOT NULL,
	`merge_commit_sha` text,
	`labels` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `merge_requests_project_iid_idx` ON `merge_requests` (`project_id`,`iid`);--> statement-breakpoint
CREATE TABLE `status_check_responses` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`merge_request_id` integer NOT NULL,
	`status_check_id` integer NOT NULL,
	`sha` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`merge_request_id`) REFERENCES `merge_requests`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`status_check_id`) REFERENCES `external_status_checks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `status_check_responses_mr_idx` ON `status_check_responses` (`merge_request_id`,`status_check_id`,`id`);--> statement-breakpoint
CREATE TABLE `external_status_checks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`external_url` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `external_status_checks_project_name_idx` ON `external_status_checks` (`project_id`,`name`);--> statement-breakpoint
CREATE TABLE `ci_pipelines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`iid` integer NOT NULL,
	`project_id` integer NOT NULL,
	`sha` text NOT NULL,
	`ref` text NOT NULL,
	`status` text DEFAULT 'success' NOT NULL,
	`source` text DEFAULT 'push' NOT NULL,
	`user_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ci_pipelines_project_idx` ON `ci_pipelines` (`project_id`,`id`);--> statement-breakpoint
CREATE TABLE `package_files` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`package_id` integer NOT NULL,
	`file_name` text NOT NULL,
	`size` integer NOT NULL,
	`file_sha256` text NOT NULL,
	`r2_key` text NOT NULL,
	`pipeline_id` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`package_id`) REFERENCES `packages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `package_files_package_idx` ON `package_files` (`package_id`,`file_name`);--> statement-breakpoint
CREATE TABLE `package_pipelines` (
	`package_id` integer NOT NULL,
	`pipeline_id` integer NOT NULL,
	PRIMARY KEY(`package_id`, `pipeline_id`),
	FOREIGN KEY (`package_id`) REFERENCES `packages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `packages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`version` text NOT NULL,
	`package_type` text NOT NULL,
	`status` text DEFAULT 'default' NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `packages_project_name_version_type_idx` ON `packages` (`project_id`,`name`,`version`,`package_type`);--> statement-breakpoint
CREATE TABLE `registry_repositories` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`path` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `registry_repositories_project_name_idx` ON `registry_repositories` (`project_id`,`name`);--> statement-breakpoint
CREATE TABLE `registry_tags` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`repository_id` integer NOT NULL,
	`name` text NOT NULL,
	`digest` text NOT NULL,
	`revision` text NOT NULL,
	`total_size` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`repository_id`) REFERENCES `registry_repositories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `registry_tags_repository_name_idx` ON `registry_tags` (`repository_id`,`name`);--> statement-breakpoint
CREATE INDEX `registry_tags_repo_idx` ON `registry_tags` (`repository_id`);--> statement-breakpoint
CREATE TABLE `runner_projects` (
	`runner_id` integer NOT NULL,
	`project_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`runner_id`, `project_id`),
	FOREIGN KEY (`runner_id`) REFERENCES `runners`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `runner_projects_project_idx` ON `runner_projects` (`project_id`);--> statement-breakpoint
CREATE TABLE `runner_registration_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`scope_type` text NOT NULL,
	`scope_id` integer NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `runner_registration_tokens_token_hash_unique` ON `runner_registration_tokens` (`token_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `runner_registration_scope_idx` ON `runner_registration_tokens` (`scope_type`,`scope_id`);--> statement-breakpoint
CREATE TABLE `runners` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`runner_type` text NOT NULL,
	`group_id` integer,
	`description` text DEFAULT '' NOT NULL,
	`token_hash` text NOT NULL,
	`paused` integer DEFAULT false NOT NULL,
	`locked` integer DEFAULT false NOT NULL,
	`run_untagged` integer DEFAULT true NOT NULL,
	`tag_list` text DEFAULT '' NOT NULL,
	`access_level` text DEFAULT 'not_protected' NOT NULL,
	`maximum_timeout` integer,
	`maintenance_note` text,
	`ip_address` text,
	`version` text,
	`creator_id` integer,
	`contacted_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `runners_token_hash_unique` ON `runners` (`token_hash`);--> statement-breakpoint
CREATE INDEX `runners_type_idx` ON `runners` (`runner_type`,`id`);--> statement-breakpoint
CREATE INDEX `runners_group_idx` ON `runners` (`group_id`);