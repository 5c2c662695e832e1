import { randomUUID } from 'node:crypto';
import { mock } from 'node:test';
import test from 'ava';
import { MemoryStore } from '../src/memory-store.ts';
import { FakeClock } from './helpers/fake-clock.ts';
import { runStoreContract } from './helpers/store-contract.ts';

runStoreContract('MemoryStore', async () => {
  const clock = new FakeClock();
  const store = new MemoryStore({ now: clock.now, sweepIntervalMs: 0 });
  return {
    store,
    now: clock.now,
    advance: async (ms) => clock.advance(ms),
    toleranceMs: 0,
    close: async () => store.close(),
  };
});

test('MemoryStore drops an entry exactly when its age reaches the window', (t) => {
  const store = new MemoryStore({ sweepIntervalMs: 0 });
  const k = randomUUID();
  store.hitSync(k, 1_000, 1, 10_000);
  t.false(store.hitSync(k, 1_000, 1, 10_999).allowed);
  t.true(store.hitSync(k, 1_000, 1, 11_000).allowed);
});

test('MemoryStore sweep removes only keys whose newest entry has left the window', (t) => {
  const store = new MemoryStore({ sweepIntervalMs: 0 });
  store.hitSync('old', 1_000, 5, 0);
  store.hitSync('recent', 1_000, 5, 0);
  store.hitSync('recent', 1_000, 5, 900);
  t.is(store.sweep(1_000), 1);
  t.is(store.size, 1);
  t.is(store.hitSync('recent', 1_000, 5, 1_000).count, 2);
});

test('MemoryStore keeps equal ids in different scopes apart, and size and sweep span every scope', (t) => {
  const store = new MemoryStore({ sweepIntervalMs: 0 });
  t.true(store.hitSync('1.2.3.4', 1_000, 1, 0, 'rl:GET /a:ip:').allowed);
  t.false(store.hitSync('1.2.3.4', 1_000, 1, 10, 'rl:GET /a:ip:').allowed);
  t.true(store.hitSync('1.2.3.4', 1_000, 1, 500, 'rl:GET /b:ip:').allowed, 'same id, other scope');
  t.true(store.hitSync('1.2.3.4', 1_000, 1, 500).allowed, 'same id in the default scope');
  t.is(store.size, 3);
  t.is(store.sweep(1_000), 1, 'only the log last hit at 0 ms has left its window');
  t.is(store.size, 2);
  t.true(store.hitSync('1.2.3.4', 1_000, 1, 1_000, 'rl:GET /a:ip:').allowed, 'a swept scope starts afresh');
});

test('MemoryStore stays exact on a long-lived hot key across many compactions', (t) => {
  const store = new MemoryStore({ sweepIntervalMs: 0 });
  let allowed = 0;
  for (let ms = 0; ms < 100_000; ms++) if (store.hitSync('hot', 100, 10, ms).allowed) allowed++;
  t.is(allowed, 10_000, '10 per 100 ms over 100 s');
});

test('MemoryStore treats a clock that steps back as no time passing', (t) => {
  const store = new MemoryStore({ sweepIntervalMs: 0 });
  store.hitSync('k', 1_000, 2, 5_000);
  const back = store.hitSync('k', 1_000, 2, 4_000);
  t.true(back.allowed);
  t.is(back.oldestMs, 5_000);
  t.true(store.hitSync('k', 1_000, 2, 6_000).allowed, 'both entries count from 5 000 ms');
});

test.serial('MemoryStore sweeps on its own timer and close() stops it', async (t) => {
  // Node's mock timers stand in for setInterval and Date.now while the store is built and run.
  mock.timers.enable({ apis: ['setInterval', 'Date'], now: 0 });
  t.teardown(() => mock.timers.reset());
  const store = new MemoryStore({ sweepIntervalMs: 20 });
  await store.hit('k', 10, 1);
  t.is(store.size, 1);
  mock.timers.tick(19);
  t.is(store.size, 1, 'no sweep before its period');
  mock.timers.tick(1);
  t.is(store.size, 0);
  store.close();
  await store.hit('k2', 10, 1);
  mock.timers.tick(60);
  t.is(store.size, 1, 'no sweep after close()');
});
