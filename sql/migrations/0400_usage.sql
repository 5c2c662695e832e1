-- Token usage of organizations (contract §4), model pricing, and the 15-minute rollup the
-- analytics endpoints read (docs/decisions/0040-usage-rollup-15m.md).

CREATE TABLE usage_events (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- No foreign keys: usage is a historical log that outlives deleted agents and users.
  agent_id uuid,
  user_id uuid,
  model_id text NOT NULL CHECK (length(model_id) BETWEEN 1 AND 200),
  action_type text NOT NULL CHECK (action_type IN
    ('user_interaction', 'guardrail_check', 'title_generation', 'rag_query_embedding', 'document_indexing')),
  source text NOT NULL CHECK (source IN ('system', 'byok')),
  -- Regular (non-cached) input tokens; cached input tokens are cache_read_tokens.
  input_tokens bigint NOT NULL CHECK (input_tokens >= 0),
  output_tokens bigint NOT NULL CHECK (output_tokens >= 0),
  cache_read_tokens bigint NOT NULL CHECK (cache_read_tokens >= 0),
  cost_usd numeric(20, 10) NOT NULL CHECK (cost_usd >= 0),
  latency_ms integer CHECK (latency_ms >= 0),
  created_at timestamptz NOT NULL
);
-- Window edges (the partial 15-minute slots) and the raw-row p95 of model efficiency read
-- this index alone (index-only scans).
CREATE INDEX usage_events_org_created_idx ON usage_events (organization_id, created_at)
  INCLUDE (model_id, action_type, source, latency_ms);

CREATE TABLE model_pricing (
  model_id text PRIMARY KEY CHECK (length(model_id) BETWEEN 1 AND 200),
  input_usd_per_mtok numeric(20, 10) NOT NULL CHECK (input_usd_per_mtok >= 0),
  output_usd_per_mtok numeric(20, 10) NOT NULL CHECK (output_usd_per_mtok >= 0),
  cache_read_usd_per_mtok numeric(20, 10) NOT NULL CHECK (cache_read_usd_per_mtok >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Sums of usage_events per organization, 15-minute UTC slot, model, action and source.
-- Every real UTC offset is a multiple of 15 minutes, so each slot lies inside one local
-- hour of any zone: bucketing slots gives exactly what bucketing the raw rows gives.
-- Kept equal to the raw rows by the statement triggers below, in the inserting transaction.
CREATE TABLE usage_rollup_15m (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  slot timestamptz NOT NULL,
  model_id text NOT NULL,
  action_type text NOT NULL,
  source text NOT NULL,
  events bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  cache_read_tokens bigint NOT NULL,
  cost_usd numeric NOT NULL,
  latency_sum bigint NOT NULL,
  latency_count bigint NOT NULL,
  PRIMARY KEY (organization_id, slot, model_id, action_type, source)
    INCLUDE (events, input_tokens, output_tokens, cache_read_tokens, cost_usd, latency_sum, latency_count)
);

CREATE FUNCTION usage_slot(at timestamptz) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN date_bin('15 minutes', at, timestamptz '2000-01-01 00:00:00+00');

CREATE FUNCTION usage_rollup_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_rollup_15m AS r
    (organization_id, slot, model_id, action_type, source, events, input_tokens, output_tokens,
     cache_read_tokens, cost_usd, latency_sum, latency_count)
  SELECT organization_id, usage_slot(created_at), model_id, action_type, source, count(*),
         sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cost_usd),
         coalesce(sum(latency_ms), 0), count(latency_ms)
  FROM inserted
  GROUP BY 1, 2, 3, 4, 5
  -- A fixed order makes concurrent imports lock shared keys in the same order (no deadlock).
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (organization_id, slot, model_id, action_type, source) DO UPDATE SET
    events = r.events + excluded.events,
    input_tokens = r.input_tokens + excluded.input_tokens,
    output_tokens = r.output_tokens + excluded.output_tokens,
    cache_read_tokens = r.cache_read_tokens + excluded.cache_read_tokens,
    cost_usd = r.cost_usd + excluded.cost_usd,
    latency_sum = r.latency_sum + excluded.latency_sum,
    latency_count = r.latency_count + excluded.latency_count;
  RETURN NULL;
END $$;

CREATE FUNCTION usage_rollup_subtract() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE usage_rollup_15m r SET
    events = r.events - d.events,
    input_tokens = r.input_tokens - d.input_tokens,
    output_tokens = r.output_tokens - d.output_tokens,
    cache_read_tokens = r.cache_read_tokens - d.cache_read_tokens,
    cost_usd = r.cost_usd - d.cost_usd,
    latency_sum = r.latency_sum - d.latency_sum,
    latency_count = r.latency_count - d.latency_count
  FROM (
    SELECT organization_id, usage_slot(created_at) AS slot, model_id, action_type, source, count(*) AS events,
           sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
           sum(cache_read_tokens) AS cache_read_tokens, sum(cost_usd) AS cost_usd,
           coalesce(sum(latency_ms), 0) AS latency_sum, count(latency_ms) AS latency_count
    FROM deleted
    GROUP BY 1, 2, 3, 4, 5
  ) d
  WHERE r.organization_id = d.organization_id AND r.slot = d.slot AND r.model_id = d.model_id
    AND r.action_type = d.action_type AND r.source = d.source;
  DELETE FROM usage_rollup_15m WHERE events = 0;
  RETURN NULL;
END $$;

CREATE FUNCTION usage_events_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'usage_events rows are immutable; delete and re-insert instead';
END $$;

CREATE FUNCTION usage_rollup_clear() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE usage_rollup_15m;
  RETURN NULL;
END $$;

CREATE TRIGGER usage_events_rollup_insert AFTER INSERT ON usage_events
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION usage_rollup_add();
CREATE TRIGGER usage_events_rollup_delete AFTER DELETE ON usage_events
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION usage_rollup_subtract();
CREATE TRIGGER usage_events_no_update BEFORE UPDATE ON usage_events
  FOR EACH ROW EXECUTE FUNCTION usage_events_immutable();
CREATE TRIGGER usage_events_rollup_truncate AFTER TRUNCATE ON usage_events
  FOR EACH STATEMENT EXECUTE FUNCTION usage_rollup_clear();
