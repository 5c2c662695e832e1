import test from 'ava';
import { RateLimiterUnavailableError, StoreTimeoutError } from '../src/errors.ts';
import { ResilientStore } from '../src/resilient-store.ts';
import type { Store } from '../src/store.ts';
import type { HitResult } from '../src/types.ts';
import { captureLogger } from './helpers/capture-logger.ts';
import { FakeClock } from './helpers/fake-clock.ts';

/** A primary store that can be switched between working, failing and hanging. */
class SwitchableStore implements Store {
  mode: 'up' | 'error' | 'hang' = 'up';
  calls = 0;
  hit(_key: string, _windowMs: number, _limit: number, nowMs: number): Promise<HitResult> {
    this.calls++;
    if (this.mode === 'error') return Promise.reject(new Error('ECONNREFUSED'));
    if (this.mode === 'hang') return new Promise(() => {});
    return Promise.resolve({ allowed: true, count: 1, oldestMs: nowMs, nowMs });
  }
}

function setup(onStoreError: 'fallback-memory' | 'fail-open' | 'fail-closed', timeoutMs = 50) {
  const clock = new FakeClock(0);
  const primary = new SwitchableStore();
  const logger = captureLogger();
  const store = new ResilientStore(primary, { onStoreError, timeoutMs, retryIntervalMs: 1_000, logger, now: clock.now });
  return { clock, primary, logger, store };
}

test('fallback-memory counts in memory while the primary fails', async (t) => {
  const { primary, store } = setup('fallback-memory');
  primary.mode = 'error';
  const results = [];
  for (let i = 0; i < 3; i++) results.push(await store.hit('k', 60_000, 2, 0));
  t.deepEqual(
    results.map((r) => r.allowed),
    [true, true, false],
  );
  t.true(store.isDown);
});

test('fail-open allows unmetered and flags the result as degraded', async (t) => {
  const { primary, store } = setup('fail-open');
  primary.mode = 'error';
  for (let i = 0; i < 3; i++) t.like(await store.hit('k', 60_000, 1, 0), { allowed: true, degraded: true });
});

test('fail-closed rejects with RateLimiterUnavailableError carrying the cause', async (t) => {
  const { primary, store } = setup('fail-closed');
  primary.mode = 'error';
  const error = await t.throwsAsync(store.hit('k', 60_000, 1, 0), { instanceOf: RateLimiterUnavailableError });
  t.is((error?.cause as Error).message, 'ECONNREFUSED');
});

test('a hanging primary counts as an error after timeoutMs', async (t) => {
  const { primary, store } = setup('fail-closed', 40);
  primary.mode = 'hang';
  const error = await t.throwsAsync(store.hit('k', 60_000, 1, 0), { instanceOf: RateLimiterUnavailableError });
  t.true(error?.cause instanceof StoreTimeoutError);
});

test('logs one warning per outage and one info on recovery, however many checks fail', async (t) => {
  const { clock, primary, logger, store } = setup('fallback-memory');
  primary.mode = 'error';
  await Promise.all(Array.from({ length: 20 }, () => store.hit('k', 60_000, 100, 0)));
  for (let i = 0; i < 5; i++) {
    clock.advance(1_000);
    await store.hit('k', 60_000, 100, 0);
  }
  primary.mode = 'up';
  clock.advance(1_000);
  await store.hit('k', 60_000, 100, 0);
  await store.hit('k', 60_000, 100, 0);
  primary.mode = 'error';
  await store.hit('k', 60_000, 100, 0);
  t.deepEqual(
    logger.lines.map((l) => l.level),
    ['warn', 'info', 'warn'],
  );
});

test('while down, the primary is probed at most once per retry interval', async (t) => {
  const { clock, primary, store } = setup('fail-open');
  primary.mode = 'error';
  await store.hit('k', 60_000, 1, 0);
  t.is(primary.calls, 1);
  for (let i = 0; i < 10; i++) await store.hit('k', 60_000, 1, 0);
  t.is(primary.calls, 1, 'no probe inside the interval');
  clock.advance(1_000);
  primary.mode = 'up';
  t.like(await store.hit('k', 60_000, 1, 0), { allowed: true, degraded: undefined });
  t.is(primary.calls, 2);
  t.false(store.isDown);
});
