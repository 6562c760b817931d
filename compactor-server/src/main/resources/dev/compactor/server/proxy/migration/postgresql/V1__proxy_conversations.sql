-- The compacting proxy's conversations and their master log. Its own Flyway history table
-- (proxy_schema_history) keeps these migrations apart from the chat store's.
-- Instants are milliseconds since the epoch (UTC).

CREATE TABLE proxy_conversations (
  id           TEXT    NOT NULL PRIMARY KEY,
  tenant       TEXT    NOT NULL,
  api          TEXT    NOT NULL,
  external_key TEXT,
  forked_from  TEXT,
  last_length  INTEGER NOT NULL,
  last_digest  TEXT    NOT NULL,
  reply        TEXT,
  view_items   TEXT,
  view_system  TEXT,
  view_covered INTEGER NOT NULL DEFAULT 0,
  compactions  INTEGER NOT NULL DEFAULT 0,
  version      BIGINT  NOT NULL DEFAULT 0,
  created_at   BIGINT  NOT NULL,
  updated_at   BIGINT  NOT NULL
);
CREATE INDEX proxy_conversations_by_digest ON proxy_conversations (tenant, api, last_digest);
CREATE UNIQUE INDEX proxy_conversations_by_key
  ON proxy_conversations (tenant, external_key) WHERE external_key IS NOT NULL;

CREATE TABLE proxy_log (
  conversation_id TEXT    NOT NULL,
  seq             INTEGER NOT NULL,
  kind            TEXT    NOT NULL,
  digest          TEXT    NOT NULL,
  body            TEXT    NOT NULL,
  created_at      BIGINT  NOT NULL,
  PRIMARY KEY (conversation_id, seq)
);
