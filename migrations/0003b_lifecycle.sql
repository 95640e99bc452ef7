-- Issue 21: lifecycle (docs/security.md "Lifecycle").
-- Which API key issued each signed upload URL, so the URL stops working when that key is revoked. Rows are swept
-- once the URL has expired.
CREATE TABLE signed_upload_issuers (
  token TEXT PRIMARY KEY NOT NULL,
  api_key_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX signed_upload_issuers_expires_idx ON signed_upload_issuers (expires_at);
-- Where each background sweep stopped (the R2 listing cursor of the orphan sweep).
CREATE TABLE lifecycle_cursors (
  name TEXT PRIMARY KEY NOT NULL,
  cursor TEXT,
  updated_at INTEGER NOT NULL
);
