-- Tool permissions of agents, per-user approve-always overrides, and the pending tool
-- approvals of the chat stream (service-interface.md, "Tool permissions and overrides").

-- The tool set of an agent, replaced as a whole by PUT /ai/agents/:agentId/tools.
-- A tool name appears once per agent. A tool of an MCP server of the agent
-- (provider_key `mcp:<serverId>`) references that server and goes when the server goes.
CREATE TABLE agent_tool_permissions (
  agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  tool_name text NOT NULL CHECK (length(tool_name) BETWEEN 1 AND 200),
  provider_key text NOT NULL CHECK (length(provider_key) BETWEEN 1 AND 200),
  permission_status text NOT NULL CHECK (permission_status IN ('always_allow', 'needs_approval', 'blocked')),
  mcp_server_id uuid REFERENCES agent_mcp_servers (id) ON DELETE CASCADE,
  -- Order of the tool in the request that set it; the set is read back in that order.
  position integer NOT NULL CHECK (position >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (agent_id, tool_name),
  CHECK ((provider_key LIKE 'mcp:%') = (mcp_server_id IS NOT NULL))
);
CREATE INDEX agent_tool_permissions_mcp_server_id_idx ON agent_tool_permissions (mcp_server_id);

-- "Approve always": the user no longer gets an approval prompt for this tool of this agent.
CREATE TABLE tool_overrides (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  tool_name text NOT NULL CHECK (length(tool_name) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, agent_id, tool_name)
);
CREATE INDEX tool_overrides_agent_id_idx ON tool_overrides (agent_id);

-- A tool call paused in state `approval-requested`, waiting for its user's answer.
-- Bound to the user and agent it was raised for; answered at most once.
CREATE TABLE tool_approvals (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  conversation_id uuid,
  tool_name text NOT NULL CHECK (length(tool_name) BETWEEN 1 AND 200),
  tool_call_id text,
  input jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  answered_at timestamptz,
  approved boolean,
  reason text CHECK (reason IS NULL OR length(reason) <= 2000),
  CHECK ((answered_at IS NULL) = (approved IS NULL))
);
CREATE INDEX tool_approvals_pending_idx ON tool_approvals (user_id, agent_id) WHERE answered_at IS NULL;
