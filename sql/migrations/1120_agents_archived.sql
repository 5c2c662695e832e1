-- An agent is archived, never deleted (docs/agents-and-tools.md, "Archiving an agent"): its
-- conversations, documents, MCP servers and usage rows stay. Every lookup of an agent for a
-- caller reads only agents with archived_at IS NULL (sql/agents.ts).
ALTER TABLE agents ADD COLUMN archived_at timestamptz;

-- The agency's agents in use, oldest first: the list and the count under the per-organization
-- cap read this index, however many archived agents the agency has piled up.
CREATE INDEX agents_agency_active_idx ON agents (agency_id, created_at, id) WHERE archived_at IS NULL;
