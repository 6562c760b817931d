-- Operations of the compacting proxy: the client's session header, the upstream and model of the
-- last request, the tokens it sent, whether the 90 % reminder went out since the last compaction;
-- indexes for the listing (newest activity first) and the retention sweep.

ALTER TABLE proxy_conversations ADD COLUMN session_key TEXT;
ALTER TABLE proxy_conversations ADD COLUMN upstream TEXT;
ALTER TABLE proxy_conversations ADD COLUMN model TEXT;
ALTER TABLE proxy_conversations ADD COLUMN last_tokens BIGINT;
ALTER TABLE proxy_conversations ADD COLUMN reminded INTEGER NOT NULL DEFAULT -1;
CREATE INDEX proxy_conversations_by_session
  ON proxy_conversations (tenant, session_key, api, last_digest);
CREATE INDEX proxy_conversations_by_activity ON proxy_conversations (tenant, updated_at, id);
CREATE INDEX proxy_conversations_by_age ON proxy_conversations (updated_at);
