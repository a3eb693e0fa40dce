CREATE TABLE `deploy_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer,
	`group_id` integer,
	`name` text NOT NULL,
	`username` text NOT NULL,
	`token_hash` text NOT NULL,
	`scopes` text NOT NULL,
	`expires_at` integer,
	`revoked` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deploy_tokens_token_hash_unique` ON `deploy_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `deploy_tokens_project_idx` ON `deploy_tokens` (`project_id`);--> statement-breakpoint
CREATE INDEX `deploy_tokens_group_idx` ON `deploy_tokens` (`group_id`);--> statement-breakpoint
CREATE TABLE `registry_blob_links` (
	`repository_path` text NOT NULL,
	`digest` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`repository_path`, `digest`)
);
--> statement-breakpoint
CREATE INDEX `registry_blob_links_digest_idx` ON `registry_blob_links` (`digest`);--> statement-breakpoint
CREATE TABLE `registry_blobs` (
	`digest` text PRIMARY KEY NOT NULL,
	`size` integer NOT NULL,
	`r2_key` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `registry_manifest_refs` (
	`repository_id` integer NOT NULL,
	`manifest_digest` text NOT NULL,
	`ref_digest` text NOT NULL,
	`kind` text NOT NULL,
	PRIMARY KEY(`repository_id`, `manifest_digest`, `ref_digest`),
	FOREIGN KEY (`repository_id`) REFERENCES `registry_repositories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `registry_manifest_refs_ref_idx` ON `registry_manifest_refs` (`ref_digest`);--> statement-breakpoint
CREATE TABLE `registry_manifests` (
	`repository_id` integer NOT NULL,
	`digest` text NOT NULL,
	`media_type` text NOT NULL,
	`content` text NOT NULL,
	`size` integer NOT NULL,
	`config_digest` text NOT NULL,
	`total_size` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`repository_id`, `digest`),
	FOREIGN KEY (`repository_id`) REFERENCES `registry_repositories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `registry_uploads` (
	`id` text PRIMARY KEY NOT NULL,
	`repository_path` text NOT NULL,
	`project_id` integer NOT NULL,
	`offset` integer DEFAULT 0 NOT NULL,
	`chunks` text DEFAULT '[]' NOT NULL,
	`busy_until` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `registry_uploads_updated_idx` ON `registry_uploads` (`updated_at`);