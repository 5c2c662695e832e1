-- The chat stream (docs/chat.md): conversations and their messages kept by the service, an
-- agent's model, and an organization's own model-provider key (BYOK).

ALTER TABLE agents ADD COLUMN model_id text CHECK (model_id IS NULL OR length(model_id) BETWEEN 1 AND 200);

-- One conversation per (organization, agent, user, client id): the id the AI SDK client sends is
-- only unique for that user and agent; `id` is the service's own key (tool_approvals refer to it).
CREATE TABLE chat_conversations (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  client_id text NOT NULL CHECK (client_id ~ '^[A-Za-z0-9_-]{1,128}$'),
  title text NOT NULL CHECK (length(title) <= 200),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (organization_id, agent_id, user_id, client_id)
);
CREATE INDEX chat_conversations_recent_idx ON chat_conversations (agent_id, user_id, updated_at DESC);

-- UI messages (the AI SDK's `{ id, role, parts }`) as the service produced or accepted them.
-- Ids are UUIDv7 made by the service, so they sort in the order the messages were written.
CREATE TABLE chat_messages (
  conversation_id uuid NOT NULL REFERENCES chat_conversations (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  role text NOT NULL CHECK (role IN ('user', 'assistant')),
  parts jsonb NOT NULL CHECK (jsonb_typeof(parts) = 'array'),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (conversation_id, id)
);

-- An organization's own provider key, sealed like MCP server credentials (AES-256-GCM, context
-- bound to the organization); `key_last_four` is what the API shows of it.
CREATE TABLE organization_provider_keys (
  organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  key_id text NOT NULL,
  ciphertext bytea NOT NULL,
  base_url text CHECK (base_url IS NULL OR length(base_url) <= 2048),
  key_last_four text NOT NULL CHECK (length(key_last_four) <= 4),
  updated_at timestamptz NOT NULL
);
