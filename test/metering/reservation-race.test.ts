import test from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { ensureOrganization } from '../../sql/fixtures.ts';
import { upsertBudget } from '../../sql/usage-budgets.ts';
import { insertUsageEvents } from '../../sql/usage-events.ts';
import { releaseReservations, reserveUsage } from '../../sql/usage-reservations.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

// reserve_usage against the write that ends a call (its usage row and the release of its
// reservation, one statement): whichever commits first, a reader sees the call's cost once.

let database: TestDatabase;
test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => {
  await database?.drop();
});

const ROUNDS = 500;

test('a reservation racing the write that settles another call never sees neither the spend nor the reservation', async (t) => {
  const db = database.pool;
  const organizationId = uuidv7();
  await ensureOrganization(db, {
    id: organizationId,
    name: 'Racing Agency',
    type: 'AGENCY',
    allowBusinessRegistration: false,
    allowClientRegistration: false,
    userCapacity: null,
  });
  await upsertBudget(db, { organizationId, monthlyLimitUsd: 1, alertThresholdsPct: [], enforce: true, now: new Date() });
  // $0.75 a call.
  await db.query(sql.unsafe`
    INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
    VALUES ('test/race-model', 0, 750, 0) ON CONFLICT (model_id) DO NOTHING`);
  let letThrough = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    // Each round in a month of its own, so the rounds' spend never adds up.
    const from = new Date(Date.UTC(2000, round, 1));
    const to = new Date(Date.UTC(2000, round + 1, 1));
    const now = new Date(from.getTime() + 3_600_000);
    const expiresAt = new Date(now.getTime() + 600_000);
    const call = (id: string) => ({
      id,
      organizationId,
      modelId: 'test/race-model',
      inputTokens: 0,
      outputTokens: 1000,
      from,
      to,
      now,
      expiresAt,
    });
    const first = uuidv7();
    t.true((await reserveUsage(db, call(first))).reserved);
    const [, second] = await Promise.all([
      insertUsageEvents(
        db,
        [
          {
            id: uuidv7(),
            organizationId,
            agentId: null,
            userId: null,
            modelId: 'test/race-model',
            actionType: 'user_interaction',
            source: 'system',
            inputTokens: 0,
            outputTokens: 1000,
            cacheReadTokens: 0,
            costUsd: '0.75',
            latencyMs: 1,
            createdAt: now,
          },
        ],
        releaseReservations([first]),
      ),
      reserveUsage(db, call(uuidv7())),
    ]);
    if (second.reserved) letThrough += 1;
    await db.query(sql.unsafe`DELETE FROM usage_reservations WHERE organization_id = ${organizationId}`);
  }
  t.is(letThrough, 0, `${letThrough} of ${ROUNDS} second calls were let through a $1 limit the first had filled`);
});
