-- Issue 27: what a signed-in person issues is bound to that person (docs/security.md "What a person issues ends
-- with their membership"). API keys, connect links, OAuth states, selections and signed upload URLs made with a
-- session record the person (`created_by_user_id`); a key or URL made by an API key keeps recording only the key.
ALTER TABLE `api_keys` ADD `created_by_user_id` text;--> statement-breakpoint
CREATE INDEX `api_keys_created_by_idx` ON `api_keys` (`workspace_id`,`created_by_user_id`);--> statement-breakpoint
ALTER TABLE `connect_links` ADD `created_by_user_id` text;--> statement-breakpoint
ALTER TABLE `oauth_states` ADD `created_by_user_id` text;--> statement-breakpoint
ALTER TABLE `connect_selections` ADD `created_by_user_id` text;--> statement-breakpoint
-- signed_upload_issuers.api_key_id becomes nullable (a URL issued to a person has no key): SQLite rebuilds the table.
CREATE TABLE `__new_signed_upload_issuers` (
	`token` text PRIMARY KEY NOT NULL,
	`api_key_id` text,
	`expires_at` integer NOT NULL,
	`workspace_id` text,
	`created_by_user_id` text
);--> statement-breakpoint
INSERT INTO `__new_signed_upload_issuers` (`token`, `api_key_id`, `expires_at`) SELECT `token`, `api_key_id`, `expires_at` FROM `signed_upload_issuers`;--> statement-breakpoint
DROP TABLE `signed_upload_issuers`;--> statement-breakpoint
ALTER TABLE `__new_signed_upload_issuers` RENAME TO `signed_upload_issuers`;--> statement-breakpoint
CREATE INDEX `signed_upload_issuers_expires_idx` ON `signed_upload_issuers` (`expires_at`);
