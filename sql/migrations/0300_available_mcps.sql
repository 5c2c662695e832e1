-- The catalog of available remote MCP servers (service-interface "Available MCP catalog").
-- Variants are JSONB validated by the API schema on every write (ADR 0030); entries are only
-- soft-deleted (is_active false).
CREATE TABLE available_mcps (
  id uuid PRIMARY KEY,
  name text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 200),
  description text NOT NULL DEFAULT '',
  logo text NOT NULL DEFAULT '',
  tags text[] NOT NULL CHECK (cardinality(tags) >= 1),
  variants jsonb NOT NULL CHECK (jsonb_typeof(variants) = 'array' AND jsonb_array_length(variants) >= 1),
  is_active boolean NOT NULL DEFAULT true,
  -- Set only on rows inserted by the curated seed: which seed entry the row came from, so the
  -- seed never inserts an entry twice, even after an admin renamed or soft-deleted it (ADR 0031).
  seed_key text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Names are unique regardless of case ("GitHub" and "github" are one entry), soft-deleted rows included.
CREATE UNIQUE INDEX available_mcps_name_key ON available_mcps (lower(name));
CREATE INDEX available_mcps_tags_idx ON available_mcps USING gin (tags);
CREATE INDEX available_mcps_active_created_idx ON available_mcps (created_at DESC, id DESC) WHERE is_active;
