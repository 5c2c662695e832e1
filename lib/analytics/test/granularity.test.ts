import test from 'ava';
import { deriveGranularity } from '../src/index.ts';

const DAY = 86_400_000;
const from = Date.UTC(2026, 0, 1);

test('a window of exactly 7 days is hourly and 1 ms more is daily', (t) => {
  t.is(deriveGranularity(from, from + 7 * DAY), 'hour');
  t.is(deriveGranularity(from, from + 7 * DAY + 1), 'day');
});

test('a window of exactly 90 days is daily and 1 ms more is weekly', (t) => {
  t.is(deriveGranularity(from, from + 90 * DAY), 'day');
  t.is(deriveGranularity(from, from + 90 * DAY + 1), 'week');
});

test('a window of exactly 365 days is weekly and 1 ms more is monthly', (t) => {
  t.is(deriveGranularity(from, from + 365 * DAY), 'week');
  t.is(deriveGranularity(from, from + 365 * DAY + 1), 'month');
});

test('an empty window is hourly', (t) => {
  t.is(deriveGranularity(from, from), 'hour');
});

test('deriveGranularity rejects a reversed window and non-finite bounds', (t) => {
  t.throws(() => deriveGranularity(from, from - 1), { instanceOf: RangeError });
  t.throws(() => deriveGranularity(Number.NaN, from), { instanceOf: RangeError });
});
