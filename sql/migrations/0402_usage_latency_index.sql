-- Model-efficiency p95 (docs/decisions/0044-p95-top-down-walk.md): each model's latencies in
-- descending order, so the exact percentile_cont(0.95) reads only the top 5% of a model's
-- rows (index-only, the window and filters checked on the included columns).
CREATE INDEX usage_events_org_model_latency_idx ON usage_events (organization_id, model_id, latency_ms)
  INCLUDE (created_at, action_type, source) WHERE latency_ms IS NOT NULL;
