-- Connection status of agent MCP servers (docs/mcp.md, "Connection status"), written by tool
-- discovery and by token refresh. An OAuth server without stored tokens is answered as
-- `needs_authorization` whatever this column says (sql/agent-mcp-servers.ts).
ALTER TABLE agent_mcp_servers
  ADD COLUMN status text NOT NULL DEFAULT 'unknown'
    CHECK (status IN ('connected', 'needs_authorization', 'reauthorization_required', 'unreachable', 'unknown')),
  ADD COLUMN last_checked_at timestamptz;
