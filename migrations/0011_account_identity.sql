-- Issue 25 finding 1: an account is its network id AT ITS SERVER. `server` is the origin that answers for the
-- account: a Mastodon account's instance, a Bluesky account's PDS as its DID document names it (verified at
-- connect); '' for networks with one server. It joins the identity key, so a reconnect never moves a connected
-- account to another server (docs/security.md "Connected accounts: identity").
ALTER TABLE `social_accounts` ADD `server` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Mastodon rows know their instance (meta.instance). Bluesky rows were never verified: they keep '' until their
-- first verified reconnect binds them (src/services/connect/upsert-accounts.ts).
UPDATE `social_accounts` SET `server` = lower(rtrim(json_extract(`meta`, '$.instance'), '/'))
  WHERE `platform` = 'mastodon' AND json_type(`meta`, '$.instance') = 'text';--> statement-breakpoint
DROP INDEX `social_accounts_identity_uq`;--> statement-breakpoint
CREATE UNIQUE INDEX `social_accounts_identity_uq` ON `social_accounts` (`workspace_id`,`platform`,`platform_user_id`,`server`) WHERE platform_user_id IS NOT NULL;
