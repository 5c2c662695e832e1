-- Invitations into an organization (docs/identity.md, "Members and invitations"): one emailed code,
-- kept as an HMAC, valid 7 days, used once. `role` is what the invited person becomes: an owner or
-- a member (a `user` with the organization's owner or member role) or a `client`.
CREATE TABLE invitations (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
  role text NOT NULL CHECK (role IN ('owner', 'member', 'client')),
  code_hash bytea NOT NULL UNIQUE CHECK (length(code_hash) = 32),
  invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  -- Set once: accepted (the principal it made), or superseded by a newer invitation of the same address.
  accepted_at timestamptz,
  accepted_by uuid REFERENCES users (id) ON DELETE SET NULL,
  superseded_at timestamptz
);
-- The live invitations of an organization by address (a new one supersedes them) and counted against the user capacity.
CREATE INDEX invitations_live_idx ON invitations (organization_id, email)
  WHERE accepted_at IS NULL AND superseded_at IS NULL;

-- Removing a member deletes the user row: the emails its agents' tools sent still count against the
-- organization's daily quota (the row stays, without its user).
ALTER TABLE agent_sent_emails ALTER COLUMN user_id DROP NOT NULL;
ALTER TABLE agent_sent_emails DROP CONSTRAINT agent_sent_emails_user_id_fkey;
ALTER TABLE agent_sent_emails ADD CONSTRAINT agent_sent_emails_user_id_fkey
  FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE SET NULL;
