-- The web channel (docs/channel.md): an agent in front of a business's customers. End users are
-- not principals of the organization: they reach an agent only through its channel, and own
-- their conversations, turns and approvals the way a staff user owns theirs (exactly one of
-- `user_id` and `end_user_id` is set on each).

CREATE TABLE agent_channels (
  agent_id uuid PRIMARY KEY REFERENCES agents (id) ON DELETE CASCADE,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- `agp_` + 32 base62 characters; public (it goes into web pages).
  publishable_key text NOT NULL UNIQUE CHECK (publishable_key ~ '^agp_[0-9A-Za-z]{32}$'),
  enabled boolean NOT NULL,
  allowed_origins text[] NOT NULL CHECK (cardinality(allowed_origins) <= 20),
  identity text NOT NULL CHECK (identity IN ('anonymous', 'verified')),
  approvals text NOT NULL CHECK (approvals IN ('staff', 'end_user')),
  end_user_messages_per_day integer NOT NULL CHECK (end_user_messages_per_day BETWEEN 1 AND 10000),
  greeting text NOT NULL CHECK (length(greeting) <= 500),
  -- The HMAC secret of verified end users, sealed (the service needs it back to check a hash).
  secret_key_id text,
  secret_ciphertext bytea,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((secret_key_id IS NULL) = (secret_ciphertext IS NULL))
);

-- An end user of one agent's channel: an anonymous visitor (continued by a visitor token, kept
-- as its SHA-256), a verified user of the business (its id, proven by an HMAC of the channel's
-- secret) or one of the organization's own clients (a `client` access token).
CREATE TABLE end_users (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('anonymous', 'verified', 'client')),
  external_id text CHECK (length(external_id) BETWEEN 1 AND 200),
  visitor_token_hash bytea UNIQUE,
  visitor_expires_at timestamptz,
  name text CHECK (length(name) <= 200),
  email text CHECK (length(email) <= 320),
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  CHECK ((kind = 'anonymous') = (external_id IS NULL)),
  CHECK ((kind = 'anonymous') = (visitor_token_hash IS NOT NULL)),
  UNIQUE (agent_id, kind, external_id)
);

-- New user messages of an end user per UTC day: the quota's exact count (one upsert a message).
CREATE TABLE end_user_daily_messages (
  end_user_id uuid NOT NULL REFERENCES end_users (id) ON DELETE CASCADE,
  day date NOT NULL,
  messages integer NOT NULL CHECK (messages >= 0),
  PRIMARY KEY (end_user_id, day)
);

ALTER TABLE chat_conversations
  ALTER COLUMN user_id DROP NOT NULL,
  ADD COLUMN end_user_id uuid REFERENCES end_users (id) ON DELETE CASCADE,
  ADD CONSTRAINT chat_conversations_one_owner CHECK (num_nonnulls(user_id, end_user_id) = 1);
CREATE UNIQUE INDEX chat_conversations_end_user_idx ON chat_conversations (agent_id, end_user_id, client_id)
  WHERE end_user_id IS NOT NULL;
CREATE INDEX chat_conversations_end_user_recent_idx ON chat_conversations (agent_id, end_user_id, updated_at DESC)
  WHERE end_user_id IS NOT NULL;

ALTER TABLE chat_turns
  ALTER COLUMN user_id DROP NOT NULL,
  ADD COLUMN end_user_id uuid REFERENCES end_users (id) ON DELETE CASCADE,
  ADD CONSTRAINT chat_turns_one_owner CHECK (num_nonnulls(user_id, end_user_id) = 1);
CREATE UNIQUE INDEX chat_turns_end_user_running_idx ON chat_turns (organization_id, agent_id, end_user_id, client_conversation_id)
  WHERE ended_at IS NULL AND end_user_id IS NOT NULL;
CREATE UNIQUE INDEX chat_turns_end_user_message_idx
  ON chat_turns (organization_id, agent_id, end_user_id, client_conversation_id, client_message_id)
  WHERE client_message_id IS NOT NULL AND end_user_id IS NOT NULL;

ALTER TABLE tool_approvals
  ALTER COLUMN user_id DROP NOT NULL,
  ADD COLUMN end_user_id uuid REFERENCES end_users (id) ON DELETE CASCADE,
  ADD CONSTRAINT tool_approvals_one_owner CHECK (num_nonnulls(user_id, end_user_id) = 1);
CREATE INDEX tool_approvals_end_user_pending_idx ON tool_approvals (end_user_id, agent_id)
  WHERE answered_at IS NULL AND end_user_id IS NOT NULL;

-- Usage of an end user's turns carries the end user (no foreign key: usage outlives them).
ALTER TABLE usage_events ADD COLUMN end_user_id uuid;
