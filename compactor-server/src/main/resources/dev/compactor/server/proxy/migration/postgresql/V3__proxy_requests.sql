-- One row per proxied request of a conversation, written in the same transaction as the
-- conversation: when (milliseconds since the epoch, UTC), what the proxy did (none, masked,
-- trimmed, summarized, reminded, recovered), the tokens before and after as in the
-- x-compactor-tokens-* headers (null when a header was not sent), and for a compaction its
-- strategy and trigger; reply_seq is the master-log line (proxy_log.seq) of the reply it got, null
-- when no reply was stored.

CREATE TABLE proxy_requests (
  conversation_id TEXT    NOT NULL,
  seq             INTEGER NOT NULL,
  created_at      BIGINT  NOT NULL,
  action          TEXT    NOT NULL,
  tokens_before   BIGINT,
  tokens_after    BIGINT,
  strategy        TEXT,
  trigger_kind    TEXT,
  reply_seq       INTEGER,
  PRIMARY KEY (conversation_id, seq)
);
