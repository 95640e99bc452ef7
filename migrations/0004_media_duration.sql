-- Issue 16: a video's duration, read from its MP4/MOV container at upload (width and height already exist).
ALTER TABLE `media` ADD `duration_seconds` real;--> statement-breakpoint
-- duration_seconds is presented on Media, so the media revision trigger (0001_post_revisions.sql) lists it too.
DROP TRIGGER IF EXISTS `media_revision_update`;--> statement-breakpoint
CREATE TRIGGER `media_revision_update` AFTER UPDATE OF `id`, `path`, `type`, `mime_type`, `original_filename`, `size`, `width`, `height`, `duration_seconds` ON `media` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
    WHERE `id` IN (SELECT `post_id` FROM `post_media` WHERE `media_id` IN (OLD.`id`, NEW.`id`));
END;
