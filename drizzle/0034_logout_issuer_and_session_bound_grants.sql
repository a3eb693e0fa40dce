ALTER TABLE `sessions` ADD `issuer` text;--> statement-breakpoint
ALTER TABLE `oauth_token_families` ADD `ends_with_session` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `oidc_backchannel_logouts` ADD `issuer` text DEFAULT '' NOT NULL;