import anyTest from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { withTestApp } from '../helpers/app.ts';
import { createTenant, insertUsage } from './support.ts';

const test = withTestApp(anyTest, { seed: false });

// Migration 0840 checks usage_events.organization_id once per statement instead of a foreign key
// per row; these are the foreign key's guarantees.

test('usage of an unknown organization is refused as a foreign key violation, and nothing is stored', async (t) => {
  const db = t.context.t.db.pool;
  const { organizationId } = await createTenant(db, 'Known');
  const unknown = uuidv7();
  const rows = (organization: string) =>
    sql.unsafe`
      INSERT INTO usage_events (id, organization_id, model_id, action_type, source, input_tokens, output_tokens,
                                cache_read_tokens, cost_usd, created_at)
      VALUES (${uuidv7()}, ${organizationId}, 'm', 'user_interaction', 'system', 1, 1, 0, 0, '2026-05-01T10:00:00Z'),
             (${uuidv7()}, ${organization}, 'm', 'user_interaction', 'system', 1, 1, 0, 0, '2026-05-01T10:00:00Z')`;
  const error = await t.throwsAsync(db.query(rows(unknown)));
  const cause = (error as { cause?: { code?: string; constraint?: string; detail?: string } }).cause;
  t.is(cause?.code, '23503');
  t.is(cause?.constraint, 'usage_events_organization_id_fkey');
  t.true(cause?.detail?.includes(unknown));
  const stored = await db.oneFirst(sql.type(z.object({ n: z.coerce.number() }))`
    SELECT (SELECT count(*) FROM usage_events WHERE organization_id = ${organizationId})
         + (SELECT count(*) FROM usage_rollup_day WHERE organization_id = ${organizationId}) AS n`);
  t.is(stored, 0);
  await db.query(rows(organizationId));
  const kept = await db.oneFirst(sql.type(z.object({ n: z.coerce.number() }))`
    SELECT count(*) AS n FROM usage_events WHERE organization_id = ${organizationId}`);
  t.is(kept, 2, 'a statement naming only existing organizations inserts every row');
});

test('deleting organizations deletes their usage and its rollups, and only theirs', async (t) => {
  const db = t.context.t.db.pool;
  const gone = await createTenant(db, 'Gone');
  const alsoGone = await createTenant(db, 'Also gone');
  const kept = await createTenant(db, 'Kept');
  for (const tenant of [gone, alsoGone, kept]) {
    await insertUsage(db, tenant.organizationId, [{ at: '2026-05-01T10:00:00Z' }, { at: '2026-05-02T11:00:00Z' }]);
  }
  await db.query(sql.unsafe`DELETE FROM users WHERE organization_id IN (${gone.organizationId}, ${alsoGone.organizationId})`);
  await db.query(sql.unsafe`DELETE FROM organizations WHERE id IN (${gone.organizationId}, ${alsoGone.organizationId})`);
  const left = async (organizationId: string) =>
    db.oneFirst(sql.type(z.object({ n: z.coerce.number() }))`
      SELECT (SELECT count(*) FROM usage_events WHERE organization_id = ${organizationId})
           + (SELECT coalesce(sum(events), 0) FROM usage_rollup_day WHERE organization_id = ${organizationId})
           + (SELECT coalesce(sum(events), 0) FROM usage_rollup_15m_source WHERE organization_id = ${organizationId}) AS n`);
  t.is(await left(gone.organizationId), 0);
  t.is(await left(alsoGone.organizationId), 0);
  t.is(await left(kept.organizationId), 6);
});
