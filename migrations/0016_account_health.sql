-- Issue 29: account health (docs/account-health.md). Whether the service can renew the account's access by itself,
-- when that access ends without a reconnect, and the health the cron and the publish job keep:
-- * refreshable: 1 the service renews the token (a refresh credential it holds), 0 it cannot; NULL not looked at
--   yet (rows from before this migration: the cron opens their credentials and fills it in);
-- * access_ends_at: epoch ms when access ends unless the user reconnects (an unrenewable token's expiry; Google
--   "Testing" apps' 7-day refresh token); NULL = not known to end;
-- * health: ok | expiring | needs_reconnect; health_reason: the network's words or ours; health_changed_at: when
--   health last changed (events of one transition are recorded by the statement that made it).
ALTER TABLE `social_accounts` ADD `refreshable` integer;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `access_ends_at` integer;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `health` text DEFAULT 'ok' NOT NULL;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `health_reason` text;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `health_changed_at` integer;--> statement-breakpoint
UPDATE `social_accounts` SET `health` = 'needs_reconnect', `health_reason` = 'The network refused the session.'
  WHERE `status` = 'token_expired';--> statement-breakpoint
CREATE INDEX `social_accounts_health_idx` ON `social_accounts` (`status`,`health`,`access_ends_at`);
