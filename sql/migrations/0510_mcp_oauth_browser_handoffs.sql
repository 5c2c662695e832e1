-- Issue 22: an MCP OAuth browser landing no longer completes a flow from the state alone.
-- initiate answers the front-end that started the flow a `browserKey` (only its hash is kept
-- here). The landing records the authorization response sealed with a one-time hand-off
-- (hash only) and redirects; the front-end completes with its access token, the hand-off and
-- the key (POST /api/ai/mcp-oauth/complete; docs/mcp-oauth.md, ADR 0082).
-- Flows started before this migration carry no key: they are dropped (they last 10 minutes).
DELETE FROM mcp_oauth_states;
ALTER TABLE mcp_oauth_states
  ADD COLUMN browser_key_hash bytea NOT NULL CHECK (length(browser_key_hash) = 32),
  ADD COLUMN handoff_hash bytea UNIQUE CHECK (length(handoff_hash) = 32),
  -- The authorization response of the landing ({ code?, iss?, error?, errorDescription? }), sealed.
  ADD COLUMN landing_key_id text,
  ADD COLUMN landing_sealed bytea,
  ADD COLUMN handoff_expires_at timestamptz,
  ADD CONSTRAINT mcp_oauth_states_landing_whole CHECK (
    (handoff_hash IS NULL) = (landing_key_id IS NULL)
    AND (handoff_hash IS NULL) = (landing_sealed IS NULL)
    AND (handoff_hash IS NULL) = (handoff_expires_at IS NULL));
