-- Compactor conversations in a database: the lossless master log, the compacted views and the
-- compaction journal of each one (what a conversation directory holds on disk), for the framework
-- memories. Its own Flyway history table (conversation_schema_history) keeps these migrations apart
-- from the chat store's and the proxy's. Instants are milliseconds since the epoch (UTC); the journal keeps nanoseconds.

CREATE TABLE conversations (
  id             TEXT   NOT NULL PRIMARY KEY,
  system_message TEXT,
  created_at     BIGINT NOT NULL,
  updated_at     BIGINT NOT NULL
);

-- The master log: append-only, seq 0, 1, 2, ... per conversation.
CREATE TABLE conversation_messages (
  conversation_id TEXT    NOT NULL,
  seq             INTEGER NOT NULL,
  message_id      TEXT    NOT NULL,
  role            TEXT    NOT NULL,
  body            TEXT    NOT NULL,
  PRIMARY KEY (conversation_id, seq),
  UNIQUE (conversation_id, message_id)
);

-- The compacted views, the last one active. master_size: the master messages when the view became
-- active; every message appended later is referenced at the end of the view then active.
CREATE TABLE conversation_views (
  conversation_id TEXT    NOT NULL,
  seq             INTEGER NOT NULL,
  view_id         TEXT    NOT NULL,
  master_size     INTEGER NOT NULL,
  entries         TEXT    NOT NULL,
  PRIMARY KEY (conversation_id, seq),
  UNIQUE (conversation_id, view_id)
);

CREATE TABLE conversation_compactions (
  conversation_id TEXT    NOT NULL,
  seq             INTEGER NOT NULL,
  at_ns           BIGINT  NOT NULL,
  trigger_name    TEXT    NOT NULL,
  strategy        TEXT    NOT NULL,
  tokens_before   BIGINT  NOT NULL,
  tokens_after    BIGINT  NOT NULL,
  messages_before INTEGER NOT NULL,
  messages_after  INTEGER NOT NULL,
  duration_ns     BIGINT  NOT NULL,
  view_id         TEXT    NOT NULL,
  limitations     TEXT    NOT NULL,
  PRIMARY KEY (conversation_id, seq)
);
