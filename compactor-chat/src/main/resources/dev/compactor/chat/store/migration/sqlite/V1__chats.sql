-- Chats, their histories, the archive of removed messages and summary records (SQLite).
-- Instants are UTC ISO-8601 text with nine fraction digits, so they sort as text.

CREATE TABLE chats (
  tenant                 TEXT    NOT NULL,
  chat_id                TEXT    NOT NULL,
  settings               TEXT,
  model                  TEXT,
  interactions           INTEGER NOT NULL DEFAULT 0,
  last_prompt_tokens     INTEGER,
  last_completion_tokens INTEGER,
  version                INTEGER NOT NULL DEFAULT 0,
  created_at             TEXT    NOT NULL,
  updated_at             TEXT    NOT NULL,
  PRIMARY KEY (tenant, chat_id)
);

CREATE TABLE messages (
  tenant     TEXT    NOT NULL,
  chat_id    TEXT    NOT NULL,
  message_id TEXT    NOT NULL,
  seq        INTEGER NOT NULL,
  role       TEXT    NOT NULL,
  body       TEXT    NOT NULL,
  PRIMARY KEY (tenant, chat_id, message_id),
  FOREIGN KEY (tenant, chat_id) REFERENCES chats (tenant, chat_id)
);
CREATE INDEX messages_in_order ON messages (tenant, chat_id, seq);

CREATE TABLE archived_messages (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant       TEXT NOT NULL,
  chat_id      TEXT NOT NULL,
  message_id   TEXT NOT NULL,
  role         TEXT NOT NULL,
  body         TEXT NOT NULL,
  reason       TEXT NOT NULL CHECK (reason IN ('summarized', 'replaced')),
  summary_uuid TEXT,
  archived_at  TEXT NOT NULL,
  FOREIGN KEY (tenant, chat_id) REFERENCES chats (tenant, chat_id)
);
CREATE INDEX archived_messages_of_chat ON archived_messages (tenant, chat_id, id);

CREATE TABLE summaries (
  uuid                 TEXT    PRIMARY KEY,
  tenant               TEXT    NOT NULL,
  chat_id              TEXT    NOT NULL,
  created_at           TEXT    NOT NULL,
  triggered_by         TEXT    NOT NULL CHECK (triggered_by IN ('auto', 'on_demand')),
  model                TEXT    NOT NULL,
  covered_message_ids  TEXT    NOT NULL,
  message_count_before INTEGER NOT NULL,
  message_count_after  INTEGER NOT NULL,
  summary_message_id   TEXT    NOT NULL,
  summary_text         TEXT    NOT NULL,
  input_tokens         INTEGER NOT NULL,
  output_tokens        INTEGER NOT NULL,
  cache_read_tokens    INTEGER NOT NULL,
  cache_write_tokens   INTEGER NOT NULL,
  reasoning_tokens     INTEGER NOT NULL,
  cost_usd             TEXT,
  FOREIGN KEY (tenant, chat_id) REFERENCES chats (tenant, chat_id)
);
CREATE INDEX summaries_of_chat ON summaries (tenant, chat_id, created_at);
