-- Replaces the single 15-minute rollup (organization, slot, model, action, source), which
-- barely compresses dense usage, with rollups that keep only the dimensions their queries
-- read (docs/decisions/0043-rollups-by-grain.md). All are kept equal to the raw rows by the
-- statement triggers of usage_events, in the inserting or deleting transaction. No foreign
-- keys: deleting an organization deletes its usage_events, whose trigger empties its rollups.

CREATE FUNCTION usage_day(at timestamptz) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN date_bin('1 day', at, timestamptz '2000-01-01 00:00:00+00');

-- Time-series without breakdown, daily totals and the heatmap: 15-minute UTC slots (every
-- real UTC offset is a multiple of 15 minutes, so no local hour boundary falls inside a slot).
CREATE TABLE usage_rollup_15m_source (
  organization_id uuid NOT NULL,
  slot timestamptz NOT NULL,
  source text NOT NULL,
  events bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  cache_read_tokens bigint NOT NULL,
  cost_usd numeric NOT NULL,
  PRIMARY KEY (organization_id, slot, source)
    INCLUDE (events, input_tokens, output_tokens, cache_read_tokens, cost_usd)
);

-- Time-series grouped by action.
CREATE TABLE usage_rollup_15m_action (
  organization_id uuid NOT NULL,
  slot timestamptz NOT NULL,
  source text NOT NULL,
  action_type text NOT NULL,
  events bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  cache_read_tokens bigint NOT NULL,
  cost_usd numeric NOT NULL,
  PRIMARY KEY (organization_id, slot, source, action_type)
    INCLUDE (events, input_tokens, output_tokens, cache_read_tokens, cost_usd)
);

-- Time-series grouped by model.
CREATE TABLE usage_rollup_15m_model (
  organization_id uuid NOT NULL,
  slot timestamptz NOT NULL,
  source text NOT NULL,
  model_id text NOT NULL,
  events bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  cache_read_tokens bigint NOT NULL,
  cost_usd numeric NOT NULL,
  PRIMARY KEY (organization_id, slot, source, model_id)
    INCLUDE (events, input_tokens, output_tokens, cache_read_tokens, cost_usd)
);

-- Window totals (model efficiency, cache savings, summary) and the UTC days of the
-- projection: whole UTC days with every dimension; partial days come from raw rows.
CREATE TABLE usage_rollup_day (
  organization_id uuid NOT NULL,
  day timestamptz NOT NULL,
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
  PRIMARY KEY (organization_id, day, model_id, action_type, source)
    INCLUDE (events, input_tokens, output_tokens, cache_read_tokens, cost_usd, latency_sum, latency_count)
);

INSERT INTO usage_rollup_15m_source
SELECT organization_id, slot, source, sum(events), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cost_usd)
FROM usage_rollup_15m GROUP BY 1, 2, 3;
INSERT INTO usage_rollup_15m_action
SELECT organization_id, slot, source, action_type, sum(events), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cost_usd)
FROM usage_rollup_15m GROUP BY 1, 2, 3, 4;
INSERT INTO usage_rollup_15m_model
SELECT organization_id, slot, source, model_id, sum(events), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cost_usd)
FROM usage_rollup_15m GROUP BY 1, 2, 3, 4;
INSERT INTO usage_rollup_day
SELECT organization_id, usage_day(slot), model_id, action_type, source, sum(events), sum(input_tokens), sum(output_tokens),
       sum(cache_read_tokens), sum(cost_usd), sum(latency_sum), sum(latency_count)
FROM usage_rollup_15m GROUP BY 1, 2, 3, 4, 5;

-- Each statement sorts its keys so concurrent imports lock shared keys in the same order.
CREATE OR REPLACE FUNCTION usage_rollup_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_rollup_15m_source AS r
  SELECT organization_id, usage_slot(created_at), source, count(*), sum(input_tokens), sum(output_tokens),
         sum(cache_read_tokens), sum(cost_usd)
  FROM inserted GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (organization_id, slot, source) DO UPDATE SET
    events = r.events + excluded.events, input_tokens = r.input_tokens + excluded.input_tokens,
    output_tokens = r.output_tokens + excluded.output_tokens,
    cache_read_tokens = r.cache_read_tokens + excluded.cache_read_tokens, cost_usd = r.cost_usd + excluded.cost_usd;

  INSERT INTO usage_rollup_15m_action AS r
  SELECT organization_id, usage_slot(created_at), source, action_type, count(*), sum(input_tokens), sum(output_tokens),
         sum(cache_read_tokens), sum(cost_usd)
  FROM inserted GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (organization_id, slot, source, action_type) DO UPDATE SET
    events = r.events + excluded.events, input_tokens = r.input_tokens + excluded.input_tokens,
    output_tokens = r.output_tokens + excluded.output_tokens,
    cache_read_tokens = r.cache_read_tokens + excluded.cache_read_tokens, cost_usd = r.cost_usd + excluded.cost_usd;

  INSERT INTO usage_rollup_15m_model AS r
  SELECT organization_id, usage_slot(created_at), source, model_id, count(*), sum(input_tokens), sum(output_tokens),
         sum(cache_read_tokens), sum(cost_usd)
  FROM inserted GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (organization_id, slot, source, model_id) DO UPDATE SET
    events = r.events + excluded.events, input_tokens = r.input_tokens + excluded.input_tokens,
    output_tokens = r.output_tokens + excluded.output_tokens,
    cache_read_tokens = r.cache_read_tokens + excluded.cache_read_tokens, cost_usd = r.cost_usd + excluded.cost_usd;

  INSERT INTO usage_rollup_day AS r
  SELECT organization_id, usage_day(created_at), model_id, action_type, source, count(*), sum(input_tokens),
         sum(output_tokens), sum(cache_read_tokens), sum(cost_usd), coalesce(sum(latency_ms), 0), count(latency_ms)
  FROM inserted GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (organization_id, day, model_id, action_type, source) DO UPDATE SET
    events = r.events + excluded.events, input_tokens = r.input_tokens + excluded.input_tokens,
    output_tokens = r.output_tokens + excluded.output_tokens,
    cache_read_tokens = r.cache_read_tokens + excluded.cache_read_tokens, cost_usd = r.cost_usd + excluded.cost_usd,
    latency_sum = r.latency_sum + excluded.latency_sum, latency_count = r.latency_count + excluded.latency_count;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION usage_rollup_subtract() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE usage_rollup_15m_source r SET
    events = r.events - d.events, input_tokens = r.input_tokens - d.input_tokens,
    output_tokens = r.output_tokens - d.output_tokens, cache_read_tokens = r.cache_read_tokens - d.cache_read_tokens,
    cost_usd = r.cost_usd - d.cost_usd
  FROM (
    SELECT organization_id, usage_slot(created_at) AS slot, source, count(*) AS events, sum(input_tokens) AS input_tokens,
           sum(output_tokens) AS output_tokens, sum(cache_read_tokens) AS cache_read_tokens, sum(cost_usd) AS cost_usd
    FROM deleted GROUP BY 1, 2, 3
  ) d
  WHERE r.organization_id = d.organization_id AND r.slot = d.slot AND r.source = d.source;
  DELETE FROM usage_rollup_15m_source WHERE events = 0;

  UPDATE usage_rollup_15m_action r SET
    events = r.events - d.events, input_tokens = r.input_tokens - d.input_tokens,
    output_tokens = r.output_tokens - d.output_tokens, cache_read_tokens = r.cache_read_tokens - d.cache_read_tokens,
    cost_usd = r.cost_usd - d.cost_usd
  FROM (
    SELECT organization_id, usage_slot(created_at) AS slot, source, action_type, count(*) AS events,
           sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
           sum(cache_read_tokens) AS cache_read_tokens, sum(cost_usd) AS cost_usd
    FROM deleted GROUP BY 1, 2, 3, 4
  ) d
  WHERE r.organization_id = d.organization_id AND r.slot = d.slot AND r.source = d.source AND r.action_type = d.action_type;
  DELETE FROM usage_rollup_15m_action WHERE events = 0;

  UPDATE usage_rollup_15m_model r SET
    events = r.events - d.events, input_tokens = r.input_tokens - d.input_tokens,
    output_tokens = r.output_tokens - d.output_tokens, cache_read_tokens = r.cache_read_tokens - d.cache_read_tokens,
    cost_usd = r.cost_usd - d.cost_usd
  FROM (
    SELECT organization_id, usage_slot(created_at) AS slot, source, model_id, count(*) AS events,
           sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
           sum(cache_read_tokens) AS cache_read_tokens, sum(cost_usd) AS cost_usd
    FROM deleted GROUP BY 1, 2, 3, 4
  ) d
  WHERE r.organization_id = d.organization_id AND r.slot = d.slot AND r.source = d.source AND r.model_id = d.model_id;
  DELETE FROM usage_rollup_15m_model WHERE events = 0;

  UPDATE usage_rollup_day r SET
    events = r.events - d.events, input_tokens = r.input_tokens - d.input_tokens,
    output_tokens = r.output_tokens - d.output_tokens, cache_read_tokens = r.cache_read_tokens - d.cache_read_tokens,
    cost_usd = r.cost_usd - d.cost_usd, latency_sum = r.latency_sum - d.latency_sum,
    latency_count = r.latency_count - d.latency_count
  FROM (
    SELECT organization_id, usage_day(created_at) AS day, model_id, action_type, source, count(*) AS events,
           sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
           sum(cache_read_tokens) AS cache_read_tokens, sum(cost_usd) AS cost_usd,
           coalesce(sum(latency_ms), 0) AS latency_sum, count(latency_ms) AS latency_count
    FROM deleted GROUP BY 1, 2, 3, 4, 5
  ) d
  WHERE r.organization_id = d.organization_id AND r.day = d.day AND r.model_id = d.model_id
    AND r.action_type = d.action_type AND r.source = d.source;
  DELETE FROM usage_rollup_day WHERE events = 0;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION usage_rollup_clear() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE usage_rollup_15m_source, usage_rollup_15m_action, usage_rollup_15m_model, usage_rollup_day;
  RETURN NULL;
END $$;

DROP TABLE usage_rollup_15m;
