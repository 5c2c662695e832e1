// One behavioural contract, run against every Store implementation.
import { randomUUID } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { createSlidingWindowLimiter } from '../../src/limiter.ts';
import type { Store } from '../../src/store.ts';

/** A store under test plus the means to let time pass for it. */
export interface StoreHarness {
  readonly store: Store;
  /** Caller clock handed to the store and limiters. */
  readonly now: () => number;
  /** Lets `ms` pass: instant with an injected clock, a real sleep otherwise. */
  advance(ms: number): Promise<void>;
  /** Clock granularity slack in ms when `now` is a real clock (0 with an injected clock). */
  readonly toleranceMs: number;
  close(): Promise<void>;
}

const key = (): string => `contract:${randomUUID()}`;

export function runStoreContract(name: string, makeHarness: () => Promise<StoreHarness>): void {
  const withHarness = (title: string, body: (h: StoreHarness, t: ExecutionContext) => Promise<void>) =>
    test(`${name}: ${title}`, async (t) => {
      const harness = await makeHarness();
      try {
        await body(harness, t);
      } finally {
        await harness.close();
      }
    });

  withHarness('allows up to the limit, then denies', async ({ store, now }, t) => {
    const k = key();
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await store.hit(k, 500, 3, now()));
    t.deepEqual(
      results.map((r) => r.allowed),
      [true, true, true, false],
    );
    t.deepEqual(
      results.map((r) => r.count),
      [1, 2, 3, 3],
    );
  });

  withHarness('reports the oldest entry in the window, in the clock it counts with', async ({ store, now }, t) => {
    const k = key();
    const first = await store.hit(k, 500, 2, now());
    t.is(first.oldestMs, first.nowMs);
    const second = await store.hit(k, 500, 2, now());
    const denied = await store.hit(k, 500, 2, now());
    t.is(second.oldestMs, first.nowMs);
    t.false(denied.allowed);
    t.is(denied.oldestMs, first.nowMs);
    t.true(denied.nowMs >= first.nowMs);
  });

  withHarness('keeps keys independent', async ({ store, now }, t) => {
    const a = key();
    t.true((await store.hit(a, 500, 1, now())).allowed);
    t.false((await store.hit(a, 500, 1, now())).allowed);
    t.true((await store.hit(key(), 500, 1, now())).allowed);
  });

  withHarness('slides: each entry leaves the window on its own', async ({ store, now, advance }, t) => {
    const k = key();
    await store.hit(k, 1_000, 2, now());
    await advance(500);
    const second = await store.hit(k, 1_000, 2, now());
    t.false((await store.hit(k, 1_000, 2, now())).allowed);
    await advance(600);
    const third = await store.hit(k, 1_000, 2, now());
    t.true(third.allowed, 'the first entry left the window, the second did not');
    t.is(third.count, 2);
    t.is(third.oldestMs, second.nowMs);
    t.false((await store.hit(k, 1_000, 2, now())).allowed);
  });

  withHarness('does not record denied checks, so they never extend the window', async ({ store, now, advance }, t) => {
    const k = key();
    await store.hit(k, 500, 1, now());
    await advance(300);
    t.false((await store.hit(k, 500, 1, now())).allowed);
    await advance(250);
    const later = await store.hit(k, 500, 1, now());
    t.true(later.allowed, 'a recorded denial at +300 ms would still block at +550 ms');
    t.is(later.count, 1);
  });

  withHarness('computes retry-after as oldest + window - now', async ({ store, now, advance, toleranceMs }, t) => {
    const limiter = createSlidingWindowLimiter({ store, limit: 1, windowMs: 500, now });
    const k = key();
    const before = now();
    t.is((await limiter.check(k)).retryAfterMs, 0);
    await advance(100);
    const denied = await limiter.check(k);
    const elapsed = now() - before;
    t.false(denied.allowed);
    // At least 100 ms passed between the two stamps and at most `elapsed`: exact (400) with an injected clock.
    t.true(denied.retryAfterMs <= 400, `${denied.retryAfterMs} <= 400`);
    t.true(denied.retryAfterMs >= 500 - elapsed - toleranceMs, `${denied.retryAfterMs} >= 500 - ${elapsed} - ${toleranceMs}`);
    t.is(denied.remaining, 0);
  });

  withHarness('allows exactly the limit out of 200 concurrent checks', async ({ store, now }, t) => {
    const k = key();
    const results = await Promise.all(Array.from({ length: 200 }, () => store.hit(k, 5_000, 10, now())));
    t.is(results.filter((r) => r.allowed).length, 10);
    const allowedCounts = results
      .filter((r) => r.allowed)
      .map((r) => r.count)
      .sort((a, b) => a - b);
    t.deepEqual(allowedCounts, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  withHarness('a cost is recorded whole when it fits and denied whole when it does not', async ({ store, now }, t) => {
    const k = key();
    const first = await store.hit(k, 5_000, 5, now(), 3);
    t.like(first, { allowed: true, count: 3 });
    const tooMuch = await store.hit(k, 5_000, 5, now(), 3);
    t.like(tooMuch, { allowed: false, count: 3 }, 'nothing of the 3 is recorded');
    t.like(await store.hit(k, 5_000, 5, now(), 2), { allowed: true, count: 5 });
    t.like(await store.hit(k, 5_000, 5, now(), 1), { allowed: false, count: 5 });
  });

  withHarness(
    'a denied cost waits until enough entries have left, not just the oldest',
    async ({ store, now, advance, toleranceMs }, t) => {
      const limiter = createSlidingWindowLimiter({ store, limit: 3, windowMs: 1_000, now });
      const k = key();
      await limiter.check(k);
      await advance(300);
      await limiter.check(k, { cost: 2 });
      const denied = await limiter.check(k, { cost: 2 });
      t.false(denied.allowed);
      // The first entry leaves at +1000 ms, but 2 units fit only when the two at +300 ms leave, at +1300 ms.
      t.true(denied.retryAfterMs >= 1_000 - toleranceMs * 50 && denied.retryAfterMs <= 1_000, `${denied.retryAfterMs}`);
      t.true(denied.resetAfterMs <= 700, `${denied.resetAfterMs}: the oldest entry still leaves first`);
      await t.throwsAsync(limiter.check(k, { cost: 4 }), { instanceOf: RangeError });
      await t.throwsAsync(limiter.check(k, { cost: 1.5 }), { instanceOf: RangeError });
    },
  );

  withHarness('peek reports without recording', async ({ store, now }, t) => {
    const limiter = createSlidingWindowLimiter({ store, limit: 2, windowMs: 5_000, now });
    const k = key();
    t.like(await limiter.peek(k), { allowed: true, remaining: 2, resetAfterMs: 0, retryAfterMs: 0 });
    await limiter.check(k);
    const one = await limiter.peek(k);
    t.like(one, { allowed: true, remaining: 1 });
    t.true(one.resetAfterMs > 4_000 && one.resetAfterMs <= 5_000);
    t.like(await limiter.peek(k), { remaining: 1 }, 'a peek records nothing');
    await limiter.check(k);
    const full = await limiter.peek(k);
    t.like(full, { allowed: false, remaining: 0 });
    t.true(full.retryAfterMs > 4_000 && full.retryAfterMs <= 5_000);
  });

  withHarness('reset forgets a key, so the next check is allowed', async ({ store, now }, t) => {
    const limiter = createSlidingWindowLimiter({ store, limit: 1, windowMs: 60_000, now });
    const k = key();
    t.true((await limiter.check(k)).allowed);
    t.false((await limiter.check(k)).allowed);
    await limiter.reset(k);
    t.like(await limiter.peek(k), { remaining: 1 });
    t.like(await limiter.check(k), { allowed: true, remaining: 0 });
  });
}
