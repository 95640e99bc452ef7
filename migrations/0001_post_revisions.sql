ALTER TABLE `posts` ADD `revision` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- A post's revision moves forward on every change to what its resource shows: the post, its platforms and their
-- accounts, its media and its labels (src/presenters/post.ts names the fields). The rendered-post cache
-- (src/services/posts/rendered-posts.ts) reuses a resource only while its revision is unchanged, so these triggers
-- are what keeps it correct — for every writer, present or future, app code or not. A bump sets the revision to
-- the current time in milliseconds, or one more than before if that is not larger: revisions never repeat, even
-- after a restore from Time Travel or a re-created database. Each UPDATE OF list is the presented columns plus
-- those that order or attach the row; test/db/post-revisions.test.ts checks that every presented field bumps.
CREATE TRIGGER `posts_revision_insert` AFTER INSERT ON `posts` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` = NEW.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `posts_revision_update` AFTER UPDATE OF `id`, `content`, `status`, `scheduled_at`, `published_at`, `created_at`, `updated_at` ON `posts` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` = NEW.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `post_platforms_revision_insert` AFTER INSERT ON `post_platforms` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` = NEW.`post_id`;
END;--> statement-breakpoint
CREATE TRIGGER `post_platforms_revision_update` AFTER UPDATE OF `id`, `post_id`, `social_account_id`, `platform`, `content_type`, `status`, `enabled`, `meta`, `platform_post_id`, `platform_url`, `published_at`, `error_message`, `display_name`, `display_username`, `display_avatar`, `position`, `created_at` ON `post_platforms` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` IN (OLD.`post_id`, NEW.`post_id`);
END;--> statement-breakpoint
CREATE TRIGGER `post_platforms_revision_delete` AFTER DELETE ON `post_platforms` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` = OLD.`post_id`;
END;--> statement-breakpoint
CREATE TRIGGER `post_media_revision_insert` AFTER INSERT ON `post_media` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` = NEW.`post_id`;
END;--> statement-breakpoint
CREATE TRIGGER `post_media_revision_update` AFTER UPDATE ON `post_media` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` IN (OLD.`post_id`, NEW.`post_id`);
END;--> statement-breakpoint
CREATE TRIGGER `post_media_revision_delete` AFTER DELETE ON `post_media` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` = OLD.`post_id`;
END;--> statement-breakpoint
CREATE TRIGGER `post_labels_revision_insert` AFTER INSERT ON `post_labels` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` = NEW.`post_id`;
END;--> statement-breakpoint
CREATE TRIGGER `post_labels_revision_update` AFTER UPDATE ON `post_labels` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` IN (OLD.`post_id`, NEW.`post_id`);
END;--> statement-breakpoint
CREATE TRIGGER `post_labels_revision_delete` AFTER DELETE ON `post_labels` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` = OLD.`post_id`;
END;--> statement-breakpoint
CREATE TRIGGER `social_accounts_revision_update` AFTER UPDATE OF `id`, `platform`, `display_name`, `username`, `is_active`, `status` ON `social_accounts` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
    WHERE `id` IN (SELECT `post_id` FROM `post_platforms` WHERE `social_account_id` IN (OLD.`id`, NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `media_revision_update` AFTER UPDATE OF `id`, `path`, `type`, `mime_type`, `original_filename`, `size`, `width`, `height` ON `media` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
    WHERE `id` IN (SELECT `post_id` FROM `post_media` WHERE `media_id` IN (OLD.`id`, NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `labels_revision_update` AFTER UPDATE OF `id`, `name`, `color`, `created_at`, `updated_at` ON `labels` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
    WHERE `id` IN (SELECT `post_id` FROM `post_labels` WHERE `label_id` IN (OLD.`id`, NEW.`id`));
END;
