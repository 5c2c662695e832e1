-- The foreign key usage_events.organization_id -> organizations ran one check per inserted row:
-- a batch of 1000 usage events locked the same organization row 1000 times, and concurrent
-- batches of one organization turned each lock into a new MultiXact (about a third of the time
-- of an ingested batch, bench/ingest/README.md). The same guarantees, once per statement:
--   * an insert locks each organization it names once (FOR KEY SHARE, as the foreign key did)
--     and fails with foreign_key_violation (23503) under the constraint's old name when one
--     does not exist;
--   * deleting organizations deletes their usage (the old ON DELETE CASCADE); a delete that
--     meets an insert in flight waits for it, then removes its rows as well.
-- usage_events rows are never updated (usage_events_no_update), so inserts are the only check.

ALTER TABLE usage_events DROP CONSTRAINT usage_events_organization_id_fkey;

CREATE FUNCTION usage_events_check_organizations() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  missing uuid;
BEGIN
  PERFORM 1 FROM organizations
  WHERE id IN (SELECT DISTINCT organization_id FROM inserted)
  ORDER BY id
  FOR KEY SHARE;
  SELECT i.organization_id INTO missing
  FROM (SELECT DISTINCT organization_id FROM inserted) i
  WHERE NOT EXISTS (SELECT 1 FROM organizations o WHERE o.id = i.organization_id)
  LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'insert or update on table "usage_events" violates foreign key constraint "usage_events_organization_id_fkey"'
      USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'usage_events_organization_id_fkey',
            TABLE = 'usage_events', SCHEMA = 'public',
            DETAIL = format('Key (organization_id)=(%s) is not present in table "organizations".', missing);
  END IF;
  RETURN NULL;
END $$;

-- Named to fire before usage_events_rollup_insert (triggers of one event fire in name order).
CREATE TRIGGER usage_events_organization_check AFTER INSERT ON usage_events
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION usage_events_check_organizations();

CREATE FUNCTION organizations_delete_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM usage_events WHERE organization_id IN (SELECT id FROM deleted);
  RETURN NULL;
END $$;

CREATE TRIGGER organizations_delete_usage AFTER DELETE ON organizations
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION organizations_delete_usage();
