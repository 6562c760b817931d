-- API keys: each names a tenant. Only a SHA-256 hash of the key is stored, never the key itself.
-- id is the key's public id (the key is cpk_<id>_<secret>).

CREATE TABLE api_keys (
  id           TEXT        PRIMARY KEY,
  tenant       TEXT        NOT NULL,
  key_sha256   TEXT        NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL,
  last_used_at TIMESTAMPTZ,
  revoked_at   TIMESTAMPTZ
);
CREATE INDEX api_keys_of_tenant ON api_keys (tenant, created_at);
