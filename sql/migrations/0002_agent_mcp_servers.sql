-- MCP servers saved on an agent. Tool permissions name them as providers (`mcp:<id>`);
-- the catalog migration adds the reference to `available_mcps` (ON DELETE SET NULL).
CREATE TABLE agent_mcp_servers (
  id uuid PRIMARY KEY,
  agency_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  url text NOT NULL,
  transport_type text NOT NULL CHECK (transport_type IN ('http', 'sse')),
  auth_type text NOT NULL CHECK (auth_type IN ('none', 'static_headers', 'oauth')),
  available_mcp_id uuid,
  variant_type text CHECK (variant_type IN ('free', 'apikey', 'oauth')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_mcp_servers_agent_id_idx ON agent_mcp_servers (agent_id);
CREATE INDEX agent_mcp_servers_available_mcp_id_idx ON agent_mcp_servers (available_mcp_id);
