-- OAuth for agent MCP servers (docs/mcp-oauth.md). Secrets are sealed with AES-256-GCM
-- (app/crypto/credentials.ts): `key_id` names the key, `sealed` is iv || tag || ciphertext,
-- and the additional authenticated data binds each value to its row (see each comment).

-- Clients obtained by dynamic client registration (RFC 7591), one per authorization server
-- issuer and redirect URI. `sealed`: { clientId, clientSecret?, tokenEndpointAuthMethod },
-- bound to `mcp-oauth-client:<issuer> <redirect_uri>`.
CREATE TABLE mcp_oauth_clients (
  issuer text NOT NULL,
  redirect_uri text NOT NULL,
  key_id text NOT NULL,
  sealed bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer, redirect_uri)
);

-- Pending authorizations: one row per initiate, deleted by the callback that uses it (single
-- use) or once expired. Only the SHA-256 of `state` is stored. `sealed`: { codeVerifier,
-- clientSecret? }, bound to `mcp-oauth-state:<state_hash hex>`.
CREATE TABLE mcp_oauth_states (
  state_hash bytea PRIMARY KEY CHECK (length(state_hash) = 32),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  agency_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  server_id uuid NOT NULL REFERENCES agent_mcp_servers (id) ON DELETE CASCADE,
  key_id text NOT NULL,
  sealed bytea NOT NULL,
  issuer text NOT NULL,
  -- The AS advertised `authorization_response_iss_parameter_supported` (RFC 9207 §3).
  iss_parameter_supported boolean NOT NULL,
  client_id text NOT NULL,
  token_endpoint_auth_method text NOT NULL
    CHECK (token_endpoint_auth_method IN ('none', 'client_secret_basic', 'client_secret_post')),
  redirect_uri text NOT NULL,
  resource text NOT NULL,
  scope text,
  token_endpoint text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mcp_oauth_states_expires_at_idx ON mcp_oauth_states (expires_at);

-- The tokens of an agent MCP server. `sealed`: { accessToken, tokenType, refreshToken?,
-- expiresAt?, scope? }, bound to `agency:<agency_id>/server:<server_id>/oauth-tokens`.
CREATE TABLE agent_mcp_server_oauth_tokens (
  server_id uuid PRIMARY KEY REFERENCES agent_mcp_servers (id) ON DELETE CASCADE,
  agency_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- Who connected the server and with which authorization server and client (needed to refresh).
  user_id uuid REFERENCES users (id) ON DELETE SET NULL,
  issuer text NOT NULL,
  client_id text NOT NULL,
  token_endpoint text NOT NULL,
  resource text NOT NULL,
  key_id text NOT NULL,
  sealed bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
