-- Issue 20: per-platform content, threads and first comments (docs/threads.md).
-- `content`: the row's own text (null: the post's content). `thread`: JSON `[{content, media: [media id …]}]`,
-- follow-up items published as replies. `first_comment`: text posted under the published post.
-- `follow_ups`: JSON results per item, keyed `t1`…`tN` and `c`: `{status, platform_post_id, platform_url,
-- error_message, reply_ref}` — presented (without reply_ref). `reply_ref`: what a reply to the row's main post needs
-- (PublishResult.replyRef, e.g. Bluesky `{cid}`); `follow_up_state`: each item's publish checkpoint
-- (`{"t1": {request, state}}`). Those two are written only by the publish job and are not presented.
ALTER TABLE `post_platforms` ADD `content` text;--> statement-breakpoint
ALTER TABLE `post_platforms` ADD `thread` text;--> statement-breakpoint
ALTER TABLE `post_platforms` ADD `first_comment` text;--> statement-breakpoint
ALTER TABLE `post_platforms` ADD `follow_ups` text;--> statement-breakpoint
ALTER TABLE `post_platforms` ADD `reply_ref` text;--> statement-breakpoint
ALTER TABLE `post_platforms` ADD `follow_up_state` text;--> statement-breakpoint
-- The revision trigger names every presented column (migrations/0001_post_revisions.sql): the new presented ones
-- join the list; reply_ref and follow_up_state (like publish_state) do not, so checkpoints do not move the revision.
DROP TRIGGER `post_platforms_revision_update`;--> statement-breakpoint
CREATE TRIGGER `post_platforms_revision_update` AFTER UPDATE OF `id`, `post_id`, `social_account_id`, `platform`, `content_type`, `status`, `enabled`, `meta`, `platform_post_id`, `platform_url`, `published_at`, `error_message`, `display_name`, `display_username`, `display_avatar`, `position`, `created_at`, `content`, `thread`, `first_comment`, `follow_ups` ON `post_platforms` BEGIN
  UPDATE `posts` SET `revision` = max(`revision` + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)) WHERE `id` IN (OLD.`post_id`, NEW.`post_id`);
END;
