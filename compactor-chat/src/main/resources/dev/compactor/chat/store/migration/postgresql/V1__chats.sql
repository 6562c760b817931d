-- Chats, their histories, the archive of removed messages and summary records (PostgreSQL).
-- Message bodies are JSON text (not jsonb): they are read back byte for byte.

CREATE TABLE chats (
  tenant                 TEXT        NOT NULL,
  chat_id                TEXT        NOT NULL,
  settings               TEXT,
  model                  TEXT,
  interactions           BIGINT      NOT NULL DEFAULT 0,
  last_prompt_tokens     BIGINT,
  last_completion_tokens BIGINT,
  version                BIGINT      NOT NULL DEFAULT 0,
  created_at             TIMESTAMPTZ NOT NULL,
  updated_at             TIMESTAMPTZ NOT NULL,
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
  id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant       TEXT        NOT NULL,
  chat_id      TEXT        NOT NULL,
  message_id   TEXT        NOT NULL,
  role         TEXT        NOT NULL,
  body         TEXT        NOT NULL,
  reason       TEXT        NOT NULL CHECK (reason IN ('summarized', 'replaced')),
  summary_uuid TEXT,
  archived_at  TIMESTAMPTZ NOT NULL,
  FOREIGN KEY (tenant, chat_id) REFERENCES chats (tenant, chat_id)
);
CREATE INDEX archived_messages_of_chat ON archived_messages (tenant, chat_id, id);

CREATE TABLE summaries (
  uuid                 TEXT           PRIMARY KEY,
  tenant               TEXT           NOT NULL,
  chat_id              TEXT           NOT NULL,
  created_at           TIMESTAMPTZ    NOT NULL,
  triggered_by         TEXT           NOT NULL CHECK (triggered_by IN ('auto', 'on_demand')),
  model                TEXT           NOT NULL,
  covered_message_ids  TEXT           NOT NULL,
  message_count_before INTEGER        NOT NULL,
  message_count_after  INTEGER        NOT NULL,
  summary_message_id   TEXT           NOT NULL,
  summary_text         TEXT           NOT NULL,
  input_tokens         BIGINT         NOT NULL,
  output_tokens        BIGINT         NOT NULL,
  cache_read_tokens    BIGINT         NOT NULL,
  cache_write_tokens   BIGINT         NOT NULL,
  reasoning_tokens     BIGINT         NOT NULL,
  cost_usd             NUMERIC(20, 9),
  FOREIGN KEY (tenant, chat_id) REFERENCES chats (tenant, chat_id)
);
CREATE INDEX summaries_of_chat ON summaries (tenant, chat_id, created_at);
