-- Issue 37: repeating and evergreen posts (docs/queues.md, "Repeating posts" and "Evergreen posts").
-- posts.repeat: the series rule as sent ({every, unit, until, count, variations, time_zone}); null when none.
-- posts.repeat_of: the series' first post (a repeat) or the published post copied (evergreen); null for an original.
-- posts.repeat_index: the occurrence's number in its series (0 = the first); (repeat_of, repeat_index) is UNIQUE, so
-- two cron runs can never create the same next occurrence or a second evergreen copy at once.
-- posts.repeat_continued: 1 once the cron has created this occurrence's next one (or found the series ended).
ALTER TABLE `posts` ADD `repeat` text;--> statement-breakpoint
ALTER TABLE `posts` ADD `repeat_of` text;--> statement-breakpoint
ALTER TABLE `posts` ADD `repeat_index` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `posts` ADD `repeat_continued` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `posts_repeat_of_idx` ON `posts` (`repeat_of`,`repeat_index`) WHERE `repeat_of` IS NOT NULL;--> statement-breakpoint
-- The cron's scan for settled occurrences still to continue: only posts with a rule, and only until continued.
CREATE INDEX `posts_repeat_due_idx` ON `posts` (`status`) WHERE `repeat` IS NOT NULL AND `repeat_continued` = 0;--> statement-breakpoint
-- A queue's evergreen settings: the label whose published posts refill its empty slots, the gap between two copies
-- of one post, and the post its last fill copied (never the same post twice in a row).
ALTER TABLE `queues` ADD `evergreen_label_id` text REFERENCES labels(id) ON DELETE SET NULL;--> statement-breakpoint
ALTER TABLE `queues` ADD `evergreen_min_days` integer DEFAULT 30 NOT NULL;--> statement-breakpoint
ALTER TABLE `queues` ADD `evergreen_last_post_id` text;--> statement-breakpoint
-- repeat and repeat_of are part of the Post resource: the revision trigger follows them (migration 0029's list).
DROP TRIGGER `posts_revision_update`;--> statement-breakpoint
CREATE TRIGGER `posts_revision_update` AFTER UPDATE OF `id`, `content`, `status`, `scheduled_at`, `published_at`, `created_at`, `updated_at`, `queue_id`, `repeat`, `repeat_of` ON `posts` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` = NEW.`id`;
END;
