-- Issue 37: a post added to a queue names it (posts.queue_id; null when scheduled by hand). The slot it holds is its
-- queue_slots row (UNIQUE on post_id). queue_id is part of what the post's resource shows, so the revision trigger
-- on posts now follows it too (the rendered-post cache trusts the revision: src/services/posts/rendered-posts.ts).
ALTER TABLE `posts` ADD `queue_id` text;--> statement-breakpoint
DROP TRIGGER `posts_revision_update`;--> statement-breakpoint
CREATE TRIGGER `posts_revision_update` AFTER UPDATE OF `id`, `content`, `status`, `scheduled_at`, `published_at`, `created_at`, `updated_at`, `queue_id` ON `posts` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` = NEW.`id`;
END;
