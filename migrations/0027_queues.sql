-- Issue 37: posting queues. A queue names weekly wall-clock slots in its IANA time zone (slots and
-- social_account_ids are JSON arrays); at most one default queue per workspace (partial unique index).
CREATE TABLE `queues` (
  `id` text PRIMARY KEY NOT NULL,
  `workspace_id` text NOT NULL,
  `name` text NOT NULL,
  `time_zone` text NOT NULL,
  `slots` text DEFAULT '[]' NOT NULL,
  `social_account_ids` text DEFAULT '[]' NOT NULL,
  `paused` integer DEFAULT false NOT NULL,
  `is_default` integer DEFAULT false NOT NULL,
  `created_at` integer NOT NULL,
  `updated_at` integer NOT NULL,
  FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);--> statement-breakpoint
CREATE INDEX `queues_workspace_idx` ON `queues` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `queues_one_default_idx` ON `queues` (`workspace_id`) WHERE `is_default` = 1;--> statement-breakpoint
-- A slot that is held: by a post (post_id) or by a reservation (post_id NULL, expires_at set). The UNIQUE index on
-- (queue_id, at) is what makes "one post per slot" hold under any concurrency: the database refuses a second holder.
CREATE TABLE `queue_slots` (
  `id` text PRIMARY KEY NOT NULL,
  `queue_id` text NOT NULL,
  `workspace_id` text NOT NULL,
  `at` integer NOT NULL,
  `post_id` text,
  `expires_at` integer,
  `created_at` integer NOT NULL,
  FOREIGN KEY (`queue_id`) REFERENCES `queues`(`id`) ON UPDATE no action ON DELETE cascade,
  FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade
);--> statement-breakpoint
CREATE UNIQUE INDEX `queue_slots_queue_at_idx` ON `queue_slots` (`queue_id`,`at`);--> statement-breakpoint
CREATE UNIQUE INDEX `queue_slots_post_idx` ON `queue_slots` (`post_id`);
