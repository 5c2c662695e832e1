import test from 'ava';
import { retryDelayMs } from '../../app/notifications/delivery/backoff.ts';

test('retry delays double from the base, stay within [half, full] of the nominal delay, and stop at the cap', (t) => {
  const bounds = (attempt: number) => [retryDelayMs(attempt, {}, () => 0), retryDelayMs(attempt, {}, () => 1)];
  t.deepEqual(bounds(1), [2_500, 5_000]);
  t.deepEqual(bounds(2), [5_000, 10_000]);
  t.deepEqual(bounds(5), [40_000, 80_000]);
  t.deepEqual(bounds(30), [1_800_000, 3_600_000]);
  t.deepEqual([retryDelayMs(3, { baseDelayMs: 100, maxDelayMs: 250 }, () => 0.5)], [188]);
});
