-- Issue 28 (reads that do not grow with the tables): indexes for the every-minute sweeps that had none, each found by
-- reading the query plans of every statement the test suite runs (docs/scale.md, "Reads that do not grow"):
-- - webhook retention deletes events older than 30 days: it read the whole events table each tick;
-- - `account.expiring` / `account.needs_reconnect` events name the accounts whose health moved at this instant: they
--   read every account;
-- - the lifecycle sweep deletes signed-upload assets never attached, older than their retention: it read every media
--   row.
CREATE INDEX `webhook_events_created_idx` ON `webhook_events` (`created_at`);--> statement-breakpoint
CREATE INDEX `social_accounts_health_changed_idx` ON `social_accounts` (`health_changed_at`);--> statement-breakpoint
CREATE INDEX `media_upload_assets_idx` ON `media` (`created_at`) WHERE `upload_token` IS NOT NULL;
