-- Dead-lettered publish jobs, stored by the publish-jobs-dlq consumer so an operator can list and replay them
-- (issue 28; GET /api/admin/dead-letters, POST /api/admin/dead-letters/replay, docs/runbook.md).
CREATE TABLE `dead_letters` (
	`id` text PRIMARY KEY NOT NULL,
	`queue` text NOT NULL,
	`message_id` text NOT NULL,
	`body` text NOT NULL,
	`post_platform_id` text,
	`workspace_id` text,
	`attempts` integer NOT NULL,
	`error` text,
	`created_at` integer NOT NULL,
	`replayed_at` integer
);
--> statement-breakpoint
CREATE INDEX `dead_letters_pending_idx` ON `dead_letters` (`replayed_at`,`created_at`);
