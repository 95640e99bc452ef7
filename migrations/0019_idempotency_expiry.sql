-- Issue 28: an idempotent create deletes its workspace's expired Idempotency-Key records in its own write batch
-- (src/services/posts/idempotency.ts). Without this index that DELETE read every record the workspace wrote in the
-- last 24 hours (1,630 rows per create in the bench); with it, a range of the expired ones.
CREATE INDEX `idempotency_records_expiry_idx` ON `idempotency_records` (`workspace_id`,`created_at`);
