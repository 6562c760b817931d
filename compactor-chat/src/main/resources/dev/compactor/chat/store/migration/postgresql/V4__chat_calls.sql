-- One row per chat task call (PostgreSQL): when, model, API, the context size before and after,
-- and the compaction report it returned (the JSON of _gpt_chat_details.compaction, null for none).

CREATE TABLE chat_calls (
  id                   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant               TEXT    NOT NULL,
  chat_id              TEXT    NOT NULL,
  called_at            TIMESTAMPTZ NOT NULL,
  model                TEXT,
  api                  TEXT,
  submitted            BOOLEAN NOT NULL,
  action               TEXT    NOT NULL CHECK (action IN ('none', 'summarized', 'provider_compacted',
                                                          'summarized_and_provider_compacted')),
  tokens_before        BIGINT,
  tokens_after         BIGINT,
  message_count_before INTEGER NOT NULL,
  message_count_after  INTEGER NOT NULL,
  summary_uuid         TEXT,
  compaction           TEXT,
  FOREIGN KEY (tenant, chat_id) REFERENCES chats (tenant, chat_id)
);
CREATE INDEX chat_calls_of_chat ON chat_calls (tenant, chat_id, id);
