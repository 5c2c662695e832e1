import test from 'ava';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { MemoryStore } from '../src/memory-store.ts';
import { RedisStore } from '../src/redis-store.ts';
import { firstDisagreement } from './helpers/model-run.ts';
import { scenario } from './helpers/model.ts';
import { connectRedis, uniquePrefix } from './helpers/redis.ts';

// RedisStore counts with the injected clock here (its `clock` option passes "now" to the script instead of
// TIME), so the three agree to the millisecond; everything else (the script, the deny cache) is the real thing.
const prefix = uniquePrefix('model');
let redis: Redis;

test.before(() => {
  redis = connectRedis();
});
test.after.always(async () => {
  await redis.quit();
});

test('MemoryStore and RedisStore (deny cache on and off) give the reference model answers for random checks, costs, peeks, resets and clock steps', async (t) => {
  const stores = {
    MemoryStore: () => new MemoryStore({ sweepIntervalMs: 0 }),
    RedisStore: (clock: () => number) => new RedisStore(redis, { prefix: `${prefix}on:`, clock, timeoutMs: 5_000 }),
    'RedisStore without deny cache': (clock: () => number) =>
      new RedisStore(redis, { prefix: `${prefix}off:`, clock, timeoutMs: 5_000, denyCache: false }),
  };
  const report = await fc.check(
    fc.asyncProperty(scenario, async (s) => (await firstDisagreement(s, stores)) === undefined),
    { numRuns: 300 },
  );
  const counterexample = report.counterexample?.[0];
  t.is(counterexample === undefined ? undefined : await firstDisagreement(counterexample, stores), undefined);
  t.false(report.failed, `seed ${report.seed}`);
});
