-- Usage from runtimes outside the service: API keys, idempotent ingestion, budgets and their
-- alerts (docs/analytics.md, "Usage from outside the service").

-- Machine credentials of an organization. The key itself is never stored: key_hash is
-- HMAC-SHA256 of the whole key under a key derived from the server secret (ADR 0140).
CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  scopes text[] NOT NULL CHECK (cardinality(scopes) >= 1),
  -- The first characters of the key (`agk_` and 8 more), shown to recognise it.
  prefix text NOT NULL,
  key_hash bytea NOT NULL UNIQUE,
  created_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz
);
CREATE INDEX api_keys_organization_idx ON api_keys (organization_id, created_at);

-- The idempotency key of an ingested event: `event:<id>` (events API) or
-- `otlp:<traceId>:<spanId>` (OTLP traces); NULL for the CLI import and the chat stream.
ALTER TABLE usage_events ADD COLUMN ingest_key text;
CREATE UNIQUE INDEX usage_events_ingest_key_idx ON usage_events (organization_id, ingest_key)
  WHERE ingest_key IS NOT NULL;

CREATE TABLE usage_budgets (
  organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  monthly_limit_usd numeric(20, 10) NOT NULL CHECK (monthly_limit_usd > 0),
  alert_thresholds_pct integer[] NOT NULL,
  updated_at timestamptz NOT NULL
);

-- One row per alert sent: `threshold:<pct>` or `at_risk`, per UTC month. The primary key is
-- what makes an alert go once, whichever process or checker run notices it first.
CREATE TABLE usage_budget_alerts (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  month text NOT NULL CHECK (month ~ '^\d{4}-\d{2}$'),
  kind text NOT NULL CHECK (kind = 'at_risk' OR kind ~ '^threshold:\d{1,3}$'),
  spent_usd numeric NOT NULL,
  sent_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, month, kind)
);
