-- One tenant name: every table that belongs to an organization names it `organization_id`
-- (agents, plans, agent MCP servers and their OAuth rows used to say `agency_id`).
ALTER TABLE plans RENAME COLUMN agency_id TO organization_id;
ALTER INDEX plans_agency_id_idx RENAME TO plans_organization_id_idx;
ALTER TABLE agents RENAME COLUMN agency_id TO organization_id;
ALTER INDEX agents_agency_id_idx RENAME TO agents_organization_id_idx;
ALTER INDEX agents_agency_active_idx RENAME TO agents_organization_active_idx;
ALTER TABLE agent_mcp_servers RENAME COLUMN agency_id TO organization_id;
ALTER TABLE mcp_oauth_states RENAME COLUMN agency_id TO organization_id;
ALTER TABLE agent_mcp_server_oauth_tokens RENAME COLUMN agency_id TO organization_id;
