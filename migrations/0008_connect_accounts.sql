-- Issue 18: connect accounts (OAuth states, pending multi-account selections, hosted connect links, Mastodon app
-- registrations) and one social account per (workspace, platform, network account id).

-- Accounts connected twice through POST /api/social-accounts before this migration: the newest row of each identity
-- keeps it; posts of the older rows are moved onto it and the older rows go (their credentials were superseded).
UPDATE `post_platforms` SET `social_account_id` = (
  SELECT `keep`.`id` FROM `social_accounts` AS `old`
  JOIN `social_accounts` AS `keep`
    ON `keep`.`workspace_id` = `old`.`workspace_id` AND `keep`.`platform` = `old`.`platform`
   AND `keep`.`platform_user_id` = `old`.`platform_user_id`
  WHERE `old`.`id` = `post_platforms`.`social_account_id`
  ORDER BY `keep`.`created_at` DESC, `keep`.`id` DESC LIMIT 1
)
WHERE `social_account_id` IN (
  SELECT `s`.`id` FROM `social_accounts` AS `s` WHERE `s`.`platform_user_id` IS NOT NULL AND EXISTS (
    SELECT 1 FROM `social_accounts` AS `n`
    WHERE `n`.`workspace_id` = `s`.`workspace_id` AND `n`.`platform` = `s`.`platform`
      AND `n`.`platform_user_id` = `s`.`platform_user_id`
      AND (`n`.`created_at` > `s`.`created_at` OR (`n`.`created_at` = `s`.`created_at` AND `n`.`id` > `s`.`id`))
  )
);
--> statement-breakpoint
DELETE FROM `social_accounts` WHERE `platform_user_id` IS NOT NULL AND EXISTS (
  SELECT 1 FROM `social_accounts` AS `n`
  WHERE `n`.`workspace_id` = `social_accounts`.`workspace_id` AND `n`.`platform` = `social_accounts`.`platform`
    AND `n`.`platform_user_id` = `social_accounts`.`platform_user_id`
    AND (`n`.`created_at` > `social_accounts`.`created_at`
      OR (`n`.`created_at` = `social_accounts`.`created_at` AND `n`.`id` > `social_accounts`.`id`))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `social_accounts_identity_uq` ON `social_accounts` (`workspace_id`,`platform`,`platform_user_id`) WHERE `platform_user_id` IS NOT NULL;
--> statement-breakpoint
CREATE TABLE `oauth_states` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`platform` text NOT NULL,
	`sealed` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `oauth_states_expiry_idx` ON `oauth_states` (`expires_at`);
--> statement-breakpoint
CREATE TABLE `connect_selections` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`platform` text NOT NULL,
	`sealed` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `connect_selections_expiry_idx` ON `connect_selections` (`expires_at`);
--> statement-breakpoint
CREATE TABLE `connect_links` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`redirect_url` text,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `connect_links_workspace_idx` ON `connect_links` (`workspace_id`,`expires_at`);
--> statement-breakpoint
CREATE TABLE `mastodon_apps` (
	`instance` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`client_id` text NOT NULL,
	`sealed_secret` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY (`instance`, `redirect_uri`)
);
