-- The stored size of each chat message (its parts as JSON text, in bytes), kept by PostgreSQL, so
-- a turn reads only the newest messages that can fit the model's context window
-- (AI_CONTEXT_MAX_TOKENS, docs/chat.md) without reading the older ones' parts.
ALTER TABLE chat_messages ADD COLUMN bytes integer GENERATED ALWAYS AS (octet_length(parts::text)) STORED;
