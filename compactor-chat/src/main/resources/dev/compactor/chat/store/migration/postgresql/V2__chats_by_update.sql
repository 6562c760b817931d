-- A tenant's chats newest first (by last update), paged by (updated_at, chat_id) keyset.

CREATE INDEX chats_by_update ON chats (tenant, updated_at, chat_id);
