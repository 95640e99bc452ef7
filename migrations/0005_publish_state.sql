-- Issue 17, "no post is ever made twice": what a publish attempt handed the network before its irreversible call
-- (TikTok publish_id, Meta container creation_id, YouTube upload session, the request fingerprint of networks
-- without a handle …), so a retry resumes from it instead of posting again. JSON, written only by the publish job
-- (src/publishing/rows.ts). Not a presented field: the post_platforms revision trigger lists its columns
-- (UPDATE OF …) and does not name this one, so writing it does not move the post's revision.
ALTER TABLE `post_platforms` ADD `publish_state` text;
