-- Agent MCP servers: the reference to their catalog entry (nulled when the entry row is
-- removed in storage; the API only soft-deletes) and the encrypted credentials.
ALTER TABLE agent_mcp_servers
  ADD CONSTRAINT agent_mcp_servers_available_mcp_id_fkey
    FOREIGN KEY (available_mcp_id) REFERENCES available_mcps (id) ON DELETE SET NULL;

-- AES-256-GCM ciphertext (iv || tag || data) of the credentials JSON, with the id of the key
-- that sealed it (app/crypto/credentials.ts; ADR 0032). Never plaintext.
ALTER TABLE agent_mcp_servers
  ADD COLUMN credentials bytea,
  ADD COLUMN credentials_key_id text,
  ADD CONSTRAINT agent_mcp_servers_credentials_key_check
    CHECK ((credentials IS NULL) = (credentials_key_id IS NULL));
