-- Chat turns that run (docs/chat.md, "Turns that survive the client"). A row is claimed before a
-- turn calls the model and ended once its answer is saved, so every instance sharing the database
-- agrees on one running turn per conversation. Keyed by the client's conversation id (the AI SDK
-- chat id), not the service's: a new conversation's row is written while its model call starts.
-- `client_message_id`: the id the client gave the user message this turn answers (none for
-- approval answers and regenerate); a second POST of it starts no turn. `lease_until` is renewed
-- by the running instance; past it the turn counts as lost (an instance that died) and the
-- conversation is free again.
CREATE TABLE chat_turns (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  client_conversation_id text NOT NULL CHECK (client_conversation_id ~ '^[A-Za-z0-9_-]{1,128}$'),
  client_message_id text CHECK (client_message_id IS NULL OR length(client_message_id) BETWEEN 1 AND 200),
  started_at timestamptz NOT NULL,
  lease_until timestamptz NOT NULL,
  ended_at timestamptz,
  outcome text CHECK (outcome IN ('finished', 'stopped', 'timed_out', 'shutdown', 'lost', 'failed')),
  CHECK ((ended_at IS NULL) = (outcome IS NULL))
);
-- At most one running turn per conversation: the claim's INSERT meets the other one here.
CREATE UNIQUE INDEX chat_turns_running_idx ON chat_turns (organization_id, agent_id, user_id, client_conversation_id)
  WHERE ended_at IS NULL;
-- A user message id starts at most one turn in its conversation.
CREATE UNIQUE INDEX chat_turns_message_idx ON chat_turns (organization_id, agent_id, user_id, client_conversation_id, client_message_id)
  WHERE client_message_id IS NOT NULL;
