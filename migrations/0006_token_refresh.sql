-- Proactive token refresh (issue 17, docs/token-refresh.md). The cron refreshes each account's token before the
-- network lets it die; these columns are its schedule and its lease:
-- * token_refresh_due_at: when the cron next looks at the account (NULL: not computed yet, so due now);
-- * token_refreshed_at: when the token was last obtained by a refresh (the base of schedules without expires_at
--   and of Instagram/Threads' "at least 24 hours old" rule);
-- * token_refresh_lease_until: while in the future, one refresh of this account is in flight and no other starts.
ALTER TABLE `social_accounts` ADD `token_refresh_due_at` integer;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `token_refreshed_at` integer;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `token_refresh_lease_until` integer;--> statement-breakpoint
CREATE INDEX `social_accounts_token_refresh_idx` ON `social_accounts` (`status`,`token_refresh_due_at`);--> statement-breakpoint
-- A writer that replaces the credentials without scheduling their refresh (a reconnect, a manual fix) leaves the
-- schedule of the old token behind: forget it, so the cron computes the new token's schedule on its next tick.
CREATE TRIGGER `social_accounts_token_refresh_reschedule` AFTER UPDATE OF `credentials`, `token_expires_at` ON `social_accounts`
WHEN NEW.`token_refresh_due_at` IS OLD.`token_refresh_due_at`
  AND (NEW.`credentials` IS NOT OLD.`credentials` OR NEW.`token_expires_at` IS NOT OLD.`token_expires_at`)
BEGIN
  UPDATE `social_accounts` SET `token_refresh_due_at` = NULL WHERE `id` = NEW.`id`;
END;
