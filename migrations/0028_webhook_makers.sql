-- Issue 35 (security review 4): a webhook endpoint records who made it — the signed-in person or the API key —
-- so it ends with its maker's access (src/services/webhooks/endpoint-makers.ts). Endpoints made before this
-- migration have neither and keep delivering.
ALTER TABLE `webhook_endpoints` ADD `created_by_user_id` text;
ALTER TABLE `webhook_endpoints` ADD `created_by_api_key_id` text;
