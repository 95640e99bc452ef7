-- Issue 21: API key scopes and the delegation tree (docs/security.md "API key scopes").
-- Existing keys keep full access: the column defaults to 'full'. parent_key_id is the key that minted this one
-- (null for keys made by the admin bootstrap or before this migration); revoking a key revokes its descendants.
ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'full';
ALTER TABLE api_keys ADD COLUMN parent_key_id TEXT;
CREATE INDEX api_keys_parent_idx ON api_keys (parent_key_id);
