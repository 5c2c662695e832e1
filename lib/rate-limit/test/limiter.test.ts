import test from 'ava';
import type { Duration } from '../src/duration.ts';
import { createSlidingWindowLimiter } from '../src/limiter.ts';
import { MemoryStore } from '../src/memory-store.ts';
import type { Store } from '../src/store.ts';
import { FakeClock } from './helpers/fake-clock.ts';

function setup(limit: number, windowMs: number | Duration) {
  const clock = new FakeClock(0);
  const store = new MemoryStore({ sweepIntervalMs: 0 });
  return { clock, limiter: createSlidingWindowLimiter({ store, limit, windowMs, now: clock.now }) };
}

test('check reports remaining capacity and when the oldest entry frees it', async (t) => {
  const { clock, limiter } = setup(3, '10s');
  t.deepEqual(await limiter.check('k'), {
    allowed: true,
    limit: 3,
    remaining: 2,
    retryAfterMs: 0,
    resetAt: 10_000,
    resetAfterMs: 10_000,
    degraded: false,
  });
  clock.advance(4_000);
  t.like(await limiter.check('k'), { allowed: true, remaining: 1, resetAt: 10_000 });
});

test('a denied check waits exactly until the oldest entry leaves the window', async (t) => {
  const { clock, limiter } = setup(2, 10_000);
  await limiter.check('k');
  clock.advance(3_000);
  await limiter.check('k');
  clock.advance(4_000);
  t.deepEqual(await limiter.check('k'), {
    allowed: false,
    limit: 2,
    remaining: 0,
    retryAfterMs: 3_000,
    resetAt: 10_000,
    resetAfterMs: 3_000,
    degraded: false,
  });
  clock.advance(2_999);
  t.false((await limiter.check('k')).allowed);
  clock.advance(1);
  t.like(await limiter.check('k'), { allowed: true, remaining: 0, resetAt: 13_000 });
});

test('a window given in milliseconds and as a declaration string mean the same', (t) => {
  t.is(setup(1, '5m').limiter.windowMs, 300_000);
  t.is(setup(1, 300_000).limiter.windowMs, 300_000);
});

test('invalid limits and windows throw at creation, naming the value', (t) => {
  const store = new MemoryStore({ sweepIntervalMs: 0 });
  for (const limit of [0, -1, 1.5, Number.NaN, '5' as unknown as number]) {
    t.throws(() => createSlidingWindowLimiter({ store, limit, windowMs: 1_000 }), {
      message: (m) => m.includes('limit') && m.includes(String(limit)),
    });
  }
  for (const windowMs of [0, -1, 2.5, '1h' as Duration]) {
    t.throws(() => createSlidingWindowLimiter({ store, limit: 1, windowMs }), { message: (m) => m.includes(String(windowMs)) });
  }
});

test('retry-after rounds a fractional store clock up to whole milliseconds', async (t) => {
  const store: Store = { hit: async () => ({ allowed: false, count: 1, oldestMs: 1_000.0004, nowMs: 1_500.9 }) };
  const limiter = createSlidingWindowLimiter({ store, limit: 1, windowMs: 1_000, now: () => 0 });
  t.is((await limiter.check('k')).retryAfterMs, 500);
});

test('the caller clock is passed to the store', async (t) => {
  const seen: number[] = [];
  const store: Store = {
    hit: async (_key, _windowMs, _limit, nowMs) => {
      seen.push(nowMs);
      return { allowed: true, count: 1, oldestMs: nowMs, nowMs };
    },
  };
  await createSlidingWindowLimiter({ store, limit: 1, windowMs: 1_000, now: () => 42 }).check('k');
  t.deepEqual(seen, [42]);
});

test('over a MemoryStore, checkSync answers at once and shares the log with check', async (t) => {
  const { clock, limiter } = setup(2, '1s');
  t.like(limiter.checkSync?.('k'), { allowed: true, remaining: 1 });
  t.like(await limiter.check('k'), { allowed: true, remaining: 0 });
  clock.advance(400);
  t.deepEqual(limiter.checkSync?.('k'), {
    allowed: false,
    limit: 2,
    remaining: 0,
    retryAfterMs: 600,
    resetAt: 1_000,
    resetAfterMs: 600,
    degraded: false,
  });
});

test('checkSync with a scope keeps one log per scope and key', (t) => {
  const { limiter } = setup(1, '1s');
  t.true(limiter.checkSync?.('1.2.3.4', 'rl:POST /a:ip:')?.allowed);
  t.false(limiter.checkSync?.('1.2.3.4', 'rl:POST /a:ip:')?.allowed, 'same scope and key: the limit of 1 is spent');
  t.true(limiter.checkSync?.('1.2.3.4', 'rl:POST /b:ip:')?.allowed, 'another scope is another log');
  t.true(limiter.checkSync?.('5.6.7.8', 'rl:POST /a:ip:')?.allowed, 'another key is another log');
});

test('resetAfterMs runs on the store clock while resetAt is re-based on the caller clock', async (t) => {
  // The store's clock is 1 500 and its oldest entry 1 000: 500 ms remain, whatever the caller's clock says.
  const store: Store = { hit: async () => ({ allowed: true, count: 1, oldestMs: 1_000, nowMs: 1_500 }) };
  const result = await createSlidingWindowLimiter({ store, limit: 2, windowMs: 1_000, now: () => 90_000 }).check('k');
  t.is(result.resetAfterMs, 500);
  t.is(result.resetAt, 90_500);
});

test('a limiter over a remote store offers no checkSync', (t) => {
  const remote: Store = { hit: (_key, _windowMs, _limit, nowMs) => Promise.resolve({ allowed: true, count: 1, oldestMs: nowMs, nowMs }) };
  t.is(createSlidingWindowLimiter({ store: remote, limit: 1, windowMs: 1_000 }).checkSync, undefined);
});
