-- An end user's chat turns by start time: the end-users analytics route counts each listed end
-- user's turns in the window (sql/usage-end-users.ts) through this index, never by a scan of
-- every organization's turns (chat_turns keeps every finished turn).
CREATE INDEX chat_turns_end_user_started_idx ON chat_turns (end_user_id, started_at) WHERE end_user_id IS NOT NULL;
