import test from 'ava';
import { checks, isError, windowRow, type WindowRow } from '../../bench/soak/report.ts';

const stores = { pgConnections: 10, redisUsedBytes: 2 ** 20, redisKeys: 17 };
const row = (window: number, endSeconds: number, rssMb: number, p99Ms: number): WindowRow => ({
  ...windowRow(window, endSeconds, [], [{ rssBytes: rssMb * 2 ** 20, heapUsedBytes: 0, loopDelayP99Ms: 0 }], stores),
  p99Ms,
});
const clean = { fiveXx: 0, noAnswer: 0 };
const failed = (rows: WindowRow[], total: number, totals = clean) =>
  checks(rows, total, totals)
    .filter((check) => !check.ok)
    .map((check) => check.name);

test('a 60-minute run of 5-minute windows takes its RSS baseline from the window ending at 10 minutes', (t) => {
  // 300 MB while warming, 200 MB at 10 minutes, 215 MB at the end: 7.5 % over the baseline.
  const rows = [
    row(1, 300, 300, 50),
    row(2, 600, 200, 50),
    ...[3, 4, 5, 6, 7, 8, 9, 10, 11].map((w) => row(w, w * 300, 205, 50)),
    row(12, 3600, 215, 60),
  ];
  t.deepEqual(failed(rows, 3600), []);
  rows[11] = row(12, 3600, 221, 60);
  t.deepEqual(failed(rows, 3600), ['RSS after the warm-up grows at most 10 %']);
});

test('the warm-up scales with the run: 3 minutes of 30 s windows compare the last window with the first', (t) => {
  const rows = [
    row(1, 30, 100, 40),
    row(2, 60, 105, 40),
    row(3, 90, 108, 40),
    row(4, 120, 109, 40),
    row(5, 150, 110, 40),
    row(6, 180, 111, 40),
  ];
  t.deepEqual(failed(rows, 180), ['RSS after the warm-up grows at most 10 %']);
});

test('p99 drift past twice the first window, a 5xx and an unanswered request each fail', (t) => {
  const rows = [row(1, 30, 100, 40), row(2, 60, 100, 81)];
  t.deepEqual(failed(rows, 60), ["p99 of the last window at most 2x the first window's"]);
  t.deepEqual(failed([row(1, 30, 100, 40)], 30, { fiveXx: 1, noAnswer: 2 }), ['no 5xx', 'every request answered']);
});

test('429 is an expected answer on limited routes only', (t) => {
  t.false(isError({ kind: 'check-email', endMs: 0, latencyMs: 1, status: 429 }));
  t.true(isError({ kind: 'agents-list', endMs: 0, latencyMs: 1, status: 429 }));
  t.true(isError({ kind: 'agents-list', endMs: 0, latencyMs: 1, status: 0 }));
});
