import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
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

test('MemoryStore sweeps on its own unref-ed timer and close() stops it', async (t) => {
  const store = new MemoryStore({ sweepIntervalMs: 20 });
  await store.hit('k', 10, 1);
  t.is(store.size, 1);
  await new Promise((resolve) => setTimeout(resolve, 80));
  t.is(store.size, 0);
  store.close();
  await store.hit('k2', 10, 1);
  await new Promise((resolve) => setTimeout(resolve, 60));
  t.is(store.size, 1, 'no sweep after close()');
});

test('MemoryStore heap returns near baseline after a burst of 1,000,000 distinct keys', async (t) => {
  const script = fileURLToPath(new URL('./fixtures/memory-burst.ts', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', script], {
    timeout: 30_000,
  });
  const m = JSON.parse(stdout) as { baseline: number; peak: number; after: number; keysAtPeak: number; keysAfter: number };
  t.is(m.keysAtPeak, 1_000_000);
  t.is(m.keysAfter, 0);
  const burstBytes = m.peak - m.baseline;
  t.true(burstBytes > 50e6, `the burst really used memory (${(burstBytes / 1e6).toFixed(0)} MB)`);
  t.true(m.after - m.baseline < 10e6, `heap after sweep is within 10 MB of baseline (${((m.after - m.baseline) / 1e6).toFixed(1)} MB)`);
  t.log(`baseline ${(m.baseline / 1e6).toFixed(1)} MB, peak ${(m.peak / 1e6).toFixed(1)} MB, after ${(m.after / 1e6).toFixed(1)} MB`);
});
