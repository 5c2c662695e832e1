import test from 'ava';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { MIGRATIONS_DIR, migrate, readMigrations } from '../../sql/migrate.ts';
import { generateUsage } from '../../seeds/usage-generator.ts';
import { createTestDatabase } from '../helpers/database.ts';

const ORGS = ['01900000-0000-7000-8000-00000000c001', '01900000-0000-7000-8000-00000000c002'];
const Any = z.record(z.string(), z.unknown());

/** Every row and rollup key as text, in one order, whatever the schema stores them as. */
async function snapshot(db: DatabasePool, model: 'text' | 'code') {
  const rows = await db.any(sql.type(Any)`
    SELECT id::text, organization_id::text, agent_id::text, user_id::text, model_id, action_type::text, source::text,
           input_tokens::text, output_tokens::text, cache_read_tokens::text, cost_usd::text, latency_ms, created_at::text
    FROM usage_events ORDER BY id`);
  const models = model === 'text' ? sql.fragment`` : sql.fragment`JOIN usage_models m ON m.code = r.model_code`;
  const modelSlots = await db.any(sql.type(Any)`
    SELECT r.organization_id::text, r.slot::text, model_id, r.source::text, r.events::int8, r.input_tokens::text,
           r.output_tokens::text, r.cache_read_tokens::text, r.cost_usd::text
    FROM usage_rollup_15m_model r ${models} ORDER BY 1, 2, 3, 4`);
  const days = await db.any(sql.type(Any)`
    SELECT r.organization_id::text, r.day::text, model_id, r.action_type::text, r.source::text, r.events::int8,
           r.cost_usd::text, r.latency_sum::int8, r.latency_count::int8
    FROM usage_rollup_day r ${models} ORDER BY 1, 2, 3, 4, 5`);
  const slots = await db.any(sql.type(Any)`
    SELECT organization_id::text, slot::text, source::text, events::int8, cost_usd::text FROM usage_rollup_15m_source ORDER BY 1, 2, 3`);
  const actions = await db.any(sql.type(Any)`
    SELECT organization_id::text, slot::text, source::text, action_type::text, events::int8, cost_usd::text
    FROM usage_rollup_15m_action ORDER BY 1, 2, 3, 4`);
  return { rows, modelSlots, days, slots, actions };
}

test('migration 0900 moves every usage row, rollup and ingest key of the old table into the partitioned one', async (t) => {
  const db = await createTestDatabase({ empty: true });
  const dir = await mkdtemp(join(tmpdir(), 'migrations-0900-'));
  t.teardown(async () => {
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });
  for (const { name } of await readMigrations()) if (name < '0900') await copyFile(join(MIGRATIONS_DIR, name), join(dir, name));
  await migrate(db.url, { dir });

  for (const [i, id] of ORGS.entries()) {
    await db.pool.query(sql.unsafe`INSERT INTO organizations (id, name, type) VALUES (${id}, ${`Copy ${i}`}, 'AGENCY')`);
    for (const batch of generateUsage({
      organizationId: id,
      rows: 1500,
      days: 70,
      end: new Date('2026-03-10T00:00:00.000Z'),
      seed: 7 + i,
      agentIds: ['01900000-0000-7000-8000-0000000a0001', '01900000-0000-7000-8000-0000000a0002'],
      userIds: ['01900000-0000-7000-8000-0000000b0001'],
    })) {
      // Written with the old table's types; every 50th row as if ingested, with its key.
      await db.pool.query(sql.unsafe`
        INSERT INTO usage_events (id, organization_id, agent_id, user_id, model_id, action_type, source, input_tokens,
                                  output_tokens, cache_read_tokens, cost_usd, latency_ms, created_at, ingest_key)
        SELECT * FROM ${sql.unnest(
          batch.map((row, n) => [
            row.id,
            row.organizationId,
            row.agentId,
            row.userId,
            row.modelId,
            row.actionType,
            row.source,
            row.inputTokens,
            row.outputTokens,
            row.cacheReadTokens,
            String(row.costUsd),
            row.latencyMs,
            row.createdAt,
            n % 50 === 0 ? `event:${row.id}` : null,
          ]),
          ['uuid', 'uuid', 'uuid', 'uuid', 'text', 'text', 'text', 'int8', 'int8', 'int8', 'numeric', 'int4', 'timestamptz', 'text'],
        )}`);
    }
  }
  const before = await snapshot(db.pool, 'text');
  const keysBefore = await db.pool.anyFirst(sql.type(z.object({ key: z.string() }))`
    SELECT organization_id || ' ' || ingest_key AS key FROM usage_events WHERE ingest_key IS NOT NULL ORDER BY 1`);

  // 0900 alone: the files after it are not what this test is about.
  await copyFile(join(MIGRATIONS_DIR, '0900_usage_partitions.sql'), join(dir, '0900_usage_partitions.sql'));
  t.deepEqual(await migrate(db.url, { dir }), ['0900_usage_partitions.sql']);

  const after = await snapshot(db.pool, 'code');
  t.is(after.rows.length, 3000);
  t.deepEqual(after, before);
  t.deepEqual(
    await db.pool.anyFirst(sql.type(z.object({ key: z.string() }))`
      SELECT organization_id || ' ' || ingest_key AS key FROM usage_ingest_keys ORDER BY 1`),
    keysBefore,
  );
  // Rows sit in their months' partitions, and each day rollup key holds its rows' latencies in order.
  const misplaced = await db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM usage_events
    WHERE tableoid::regclass::text <> 'usage_events_' || to_char(created_at AT TIME ZONE 'UTC', 'YYYYMM')`);
  t.is(misplaced, 0);
  const wrongLatencies = await db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n
    FROM usage_rollup_day d JOIN usage_models m ON m.code = d.model_code
    WHERE d.latencies IS DISTINCT FROM (
      SELECT coalesce(array_agg(e.latency_ms ORDER BY e.latency_ms) FILTER (WHERE e.latency_ms IS NOT NULL), '{}')
      FROM usage_events e
      WHERE e.organization_id = d.organization_id AND usage_day(e.created_at) = d.day AND e.model_id = m.model_id
        AND e.action_type = d.action_type AND e.source = d.source)`);
  t.is(wrongLatencies, 0);
});
