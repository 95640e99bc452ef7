-- Issue 25: connect links and OAuth flows end with the API key that made them, and are bound to one browser.
-- `api_key_id`: the key that created the link, or started the flow (directly or through a link); a link or flow whose
-- key is revoked or expired is refused. Null on rows made before this migration (they live out their own expiry).
-- `purpose`: an optional line the hosted pages show under the workspace's name.
-- `browser_hash`: SHA-256 of the `__Host-` cookie of the browser the flow belongs to (set by the first-party hop);
-- the callback is refused without it. `authorize_url`: the network's consent URL the hop sends that browser to.
ALTER TABLE `connect_links` ADD `api_key_id` text;--> statement-breakpoint
ALTER TABLE `connect_links` ADD `purpose` text;--> statement-breakpoint
ALTER TABLE `oauth_states` ADD `api_key_id` text;--> statement-breakpoint
ALTER TABLE `oauth_states` ADD `browser_hash` text;--> statement-breakpoint
ALTER TABLE `oauth_states` ADD `authorize_url` text;--> statement-breakpoint
ALTER TABLE `connect_selections` ADD `api_key_id` text;
