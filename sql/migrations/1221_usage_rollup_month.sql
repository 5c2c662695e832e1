-- Usage cost per organization, UTC month and source (system: the platform key; byok): what the
-- agency's bill reads (docs/billing.md). A thousand businesses' month is a few thousand rows of
-- this table, against a few hundred thousand of the day rollup. Kept equal to the raw rows by
-- statement triggers of usage_events, in the inserting or deleting transaction, like the other
-- rollups; retention (usage_events_drop_before) fires none, so the months stay.

CREATE TABLE usage_rollup_month (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  month timestamptz NOT NULL,
  source usage_source NOT NULL,
  events bigint NOT NULL,
  cost_usd numeric NOT NULL,
  PRIMARY KEY (organization_id, month, source)
);

CREATE FUNCTION usage_month(at timestamptz) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN date_trunc('month', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';

INSERT INTO usage_rollup_month (organization_id, month, source, events, cost_usd)
SELECT organization_id, usage_month(day), source, sum(events), sum(cost_usd)
FROM usage_rollup_day GROUP BY 1, 2, 3;

-- Keys sorted: concurrent writers of one organization lock its month rows in the same order.
CREATE FUNCTION usage_rollup_month_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_rollup_month AS r (organization_id, month, source, events, cost_usd)
  SELECT organization_id, usage_month(created_at), source, count(*), sum(cost_usd)
  FROM inserted GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (organization_id, month, source) DO UPDATE SET
    events = r.events + excluded.events, cost_usd = r.cost_usd + excluded.cost_usd;
  RETURN NULL;
END $$;

CREATE FUNCTION usage_rollup_month_subtract() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE usage_rollup_month r SET events = r.events - d.events, cost_usd = r.cost_usd - d.cost_usd
  FROM (
    SELECT organization_id, usage_month(created_at) AS month, source, count(*) AS events, sum(cost_usd) AS cost_usd
    FROM deleted GROUP BY 1, 2, 3
  ) d
  WHERE r.organization_id = d.organization_id AND r.month = d.month AND r.source = d.source;
  DELETE FROM usage_rollup_month WHERE events = 0;
  RETURN NULL;
END $$;

CREATE FUNCTION usage_rollup_month_clear() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE usage_rollup_month;
  RETURN NULL;
END $$;

CREATE TRIGGER usage_events_rollup_month_insert AFTER INSERT ON usage_events
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION usage_rollup_month_add();
CREATE TRIGGER usage_events_rollup_month_delete AFTER DELETE ON usage_events
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION usage_rollup_month_subtract();
CREATE TRIGGER usage_events_rollup_month_truncate AFTER TRUNCATE ON usage_events
  FOR EACH STATEMENT EXECUTE FUNCTION usage_rollup_month_clear();
