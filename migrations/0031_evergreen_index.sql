-- Issue 37: the every-minute evergreen scan (src/services/queues/evergreen.ts) reads only the queues that name a
-- label, not every queue of every workspace.
CREATE INDEX `queues_evergreen_idx` ON `queues` (`workspace_id`) WHERE `evergreen_label_id` IS NOT NULL;
