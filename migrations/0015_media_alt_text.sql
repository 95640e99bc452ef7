-- Issue 29: a media item's alt text (bounded at 1,500 characters by the API; docs/decisions.md), sent to the networks
-- that take one. `alt` is presented on Media, so the media revision trigger (0001_post_revisions.sql, last redefined
-- in 0004_media_duration.sql) lists it too.
ALTER TABLE `media` ADD `alt` text;--> statement-breakpoint
DROP TRIGGER IF EXISTS `media_revision_update`;--> statement-breakpoint
CREATE TRIGGER `media_revision_update` AFTER UPDATE OF `id`, `path`, `type`, `mime_type`, `original_filename`, `size`, `width`, `height`, `duration_seconds`, `alt` ON `media` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
    WHERE `id` IN (SELECT `post_id` FROM `post_media` WHERE `media_id` IN (OLD.`id`, NEW.`id`))
       OR `id` IN (SELECT `pp`.`post_id` FROM `post_platforms` `pp`, json_each(`pp`.`thread`) `ti`, json_each(`ti`.`value`, '$.media') `tm`
                   WHERE `pp`.`thread` IS NOT NULL AND `tm`.`value` IN (OLD.`id`, NEW.`id`));
END;
