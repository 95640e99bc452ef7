-- Issue 28 (reads that do not grow with the tables): the every-minute re-seal sweeps (src/services/sealing) looked
-- for values still under a previous key with a query no index can answer, so once every value was under the current
-- key each tick read every account, webhook endpoint, Mastodon app, OAuth state and selection there is, for nothing.
-- A sweep that finds nothing left records it here (its name, the key id it swept for, when); while the key id is
-- the same, the sweep rests for a day, then looks once more (values sealed meanwhile by a Worker still on the old
-- key, during a deploy, are found then).
CREATE TABLE `sweep_marks` (
	`name` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`finished_at` integer NOT NULL
);
