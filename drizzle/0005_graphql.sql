CREATE TABLE `issues` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`iid` integer NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`state` text DEFAULT 'opened' NOT NULL,
	`author_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `issues_project_iid_idx` ON `issues` (`project_id`,`iid`);--> statement-breakpoint
CREATE TABLE `security_report_findings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`pipeline_id` integer NOT NULL,
	`project_id` integer NOT NULL,
	`uuid` text NOT NULL,
	`project_fingerprint` text NOT NULL,
	`report_type` text NOT NULL,
	`severity` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`solution` text,
	`state` text DEFAULT 'detected' NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `security_report_findings_pipeline_uuid_idx` ON `security_report_findings` (`pipeline_id`,`uuid`);--> statement-breakpoint
CREATE INDEX `security_report_findings_project_idx` ON `security_report_findings` (`project_id`);--> statement-breakpoint
CREATE TABLE `usage_trends_measurements` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`identifier` text NOT NULL,
	`count` integer NOT NULL,
	`recorded_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `usage_trends_identifier_recorded_idx` ON `usage_trends_measurements` (`identifier`,`recorded_at`);