-- Registration, email verification, Google sign-in and the notifications outbox.

-- The Google account (OpenID `sub`) a principal signs in with; one principal per account and type.
ALTER TABLE users ADD COLUMN google_subject text;
CREATE UNIQUE INDEX users_type_google_subject_key ON users (type, google_subject) WHERE google_subject IS NOT NULL;

-- One-time codes sent to a principal. Only an HMAC of the code is stored; a code is live while
-- it is unconsumed, unexpired and has attempts left. Issuing a new code supersedes older ones.
CREATE TABLE verification_codes (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('email_verification')),
  code_hash bytea NOT NULL,
  expires_at timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  max_attempts integer NOT NULL CHECK (max_attempts > 0),
  consumed_at timestamptz,
  superseded_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX verification_codes_user_id_idx ON verification_codes (user_id, purpose, created_at DESC);

-- Messages handed to the default transport (a transactional outbox). The body may carry a
-- code, so it is stored sealed (AES-256-GCM); a delivery worker opens it with the same key.
CREATE TABLE notification_outbox (
  id uuid PRIMARY KEY,
  channel text NOT NULL CHECK (channel IN ('email', 'sms')),
  recipient text NOT NULL,
  template text NOT NULL,
  sealed_body bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);
CREATE INDEX notification_outbox_pending_idx ON notification_outbox (created_at) WHERE sent_at IS NULL;

-- The role a self-registered agency owner receives (the demo seed uses the same id and name).
INSERT INTO roles (id, name, description)
VALUES ('01900000-0000-7000-8000-000000000101', 'agency-owner', 'Manages an agency: its agents, organization settings and plans')
ON CONFLICT DO NOTHING;
INSERT INTO role_permissions (role_id, subject, action)
SELECT r.id, p.subject, p.action
FROM roles r
CROSS JOIN (VALUES ('ai.agent', 'read'), ('ai.agent', 'create'), ('ai.agent', 'update'),
                   ('organization', 'read'), ('organization', 'update'),
                   ('plan', 'read'), ('plan', 'create'), ('plan', 'update')) AS p (subject, action)
WHERE r.name = 'agency-owner'
ON CONFLICT DO NOTHING;
