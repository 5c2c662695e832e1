-- Organizations, principals, roles and policies, refresh tokens, plans and agents:
-- the identity core every area builds on.

CREATE TABLE organizations (
  id uuid PRIMARY KEY,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  type text NOT NULL CHECK (type IN ('AGENCY', 'BUSINESS', 'PLATFORM')),
  -- A BUSINESS belongs to the agency it registered under.
  parent_id uuid REFERENCES organizations (id) ON DELETE RESTRICT,
  allow_business_registration boolean NOT NULL DEFAULT false,
  -- Users the agency's subscription allows, its businesses' users included; NULL: no limit.
  user_capacity integer CHECK (user_capacity IS NULL OR user_capacity >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (type = 'AGENCY' OR allow_business_registration = false),
  CHECK ((type = 'BUSINESS') = (parent_id IS NOT NULL))
);
CREATE INDEX organizations_parent_id_idx ON organizations (parent_id);

-- A principal that can log in: a `user` (agency staff) or a `client` (end customer).
CREATE TABLE users (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('user', 'client')),
  email text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
  name text NOT NULL DEFAULT '',
  -- PHC string (argon2id); NULL for accounts that only sign in with Google.
  password_hash text,
  email_verified_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (type, email)
);
CREATE INDEX users_organization_id_idx ON users (organization_id);

CREATE TABLE roles (
  id uuid PRIMARY KEY,
  name text NOT NULL UNIQUE,
  description text NOT NULL DEFAULT ''
);

CREATE TABLE role_permissions (
  role_id uuid NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  subject text NOT NULL,
  action text NOT NULL,
  PRIMARY KEY (role_id, subject, action)
);

CREATE TABLE user_roles (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role_id uuid NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  PRIMARY KEY (user_id, role_id)
);
CREATE INDEX user_roles_role_id_idx ON user_roles (role_id);

-- Opaque refresh tokens, stored as SHA-256 hashes. Each use rotates the token inside its
-- family; presenting a rotated token again revokes the whole family (reuse detection).
CREATE TABLE refresh_tokens (
  id uuid PRIMARY KEY,
  family_id uuid NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash bytea NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  rotated_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refresh_tokens_family_id_idx ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_user_id_idx ON refresh_tokens (user_id);

CREATE TABLE plans (
  id uuid PRIMARY KEY,
  agency_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  is_public boolean NOT NULL,
  is_active boolean NOT NULL,
  max_users integer CHECK (max_users IS NULL OR max_users > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX plans_agency_id_idx ON plans (agency_id);

CREATE TABLE agents (
  id uuid PRIMARY KEY,
  agency_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agents_agency_id_idx ON agents (agency_id, created_at);
