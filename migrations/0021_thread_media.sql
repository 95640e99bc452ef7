-- Issue 28 (reads that do not grow with the workspace): the media each thread item names, one row per (media, post
-- platform row), kept by triggers on `post_platforms.thread` for every writer, present or future. Releasing a media
-- no post uses any more (src/services/media/release-media.ts) asks whether a thread still names it: an index lookup
-- here instead of reading every post of the workspace and unpacking its threads (2,000 rows for 2,000 posts).
CREATE TABLE `post_thread_media` (
	`media_id` text NOT NULL,
	`post_platform_id` text NOT NULL,
	PRIMARY KEY(`media_id`, `post_platform_id`)
);
--> statement-breakpoint
CREATE INDEX `post_thread_media_row_idx` ON `post_thread_media` (`post_platform_id`);--> statement-breakpoint
CREATE TRIGGER `post_thread_media_insert` AFTER INSERT ON `post_platforms` WHEN NEW.`thread` IS NOT NULL BEGIN
  INSERT OR IGNORE INTO `post_thread_media` (`media_id`, `post_platform_id`)
    SELECT tm.value, NEW.`id` FROM json_each(NEW.`thread`) ti, json_each(ti.value, '$.media') tm;
END;--> statement-breakpoint
CREATE TRIGGER `post_thread_media_update` AFTER UPDATE OF `id`, `thread` ON `post_platforms` BEGIN
  DELETE FROM `post_thread_media` WHERE `post_platform_id` = OLD.`id`;
  INSERT OR IGNORE INTO `post_thread_media` (`media_id`, `post_platform_id`)
    SELECT tm.value, NEW.`id` FROM json_each(NEW.`thread`) ti, json_each(ti.value, '$.media') tm
    WHERE NEW.`thread` IS NOT NULL;
END;--> statement-breakpoint
CREATE TRIGGER `post_thread_media_delete` AFTER DELETE ON `post_platforms` WHEN OLD.`thread` IS NOT NULL BEGIN
  DELETE FROM `post_thread_media` WHERE `post_platform_id` = OLD.`id`;
END;--> statement-breakpoint
INSERT OR IGNORE INTO `post_thread_media` (`media_id`, `post_platform_id`)
  SELECT tm.value, pp.`id` FROM `post_platforms` pp, json_each(pp.`thread`) ti, json_each(ti.value, '$.media') tm
  WHERE pp.`thread` IS NOT NULL;
