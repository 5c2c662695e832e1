import test from 'ava';
import { readFileSync } from 'node:fs';
import { RATE_LIMITS } from '../../app/rate-limits.ts';

/** The promised limits, from the fixture beside this file (the interface's table in the project's words). */
function promisedLimits() {
  const fixture = readFileSync(new URL('./limits-per-endpoint.md', import.meta.url), 'utf8');
  return fixture
    .split('\n')
    .filter((line) => /^\| (GET|POST) /.test(line))
    .map((line) => {
      const [endpoint, limit, window, identifier] = line.split('|').slice(1, 5).map((cell) => cell.trim());
      return { endpoint, limit: Number(limit), window, identifier };
    });
}

/** `15m` -> `15 min`, the fixture's spelling. */
const spelled = (windowMs: string) => windowMs.replace(/^(\d+)m$/, '$1 min');

test('each of the thirteen promised limits is declared exactly as promised, in the promised order', (t) => {
  const promised = promisedLimits();
  t.is(promised.length, 13);
  const declared = RATE_LIMITS.map((row) => ({
    endpoint: row.endpoint,
    limit: row.limit,
    window: spelled(row.windowMs),
    identifier: row.identifierType === 'ip' ? 'IP' : row.identifierType,
  }));
  // Later limits (routes added after the interface document) may sit among them; these may not change.
  const endpoints = new Set(promised.map((row) => row.endpoint));
  t.deepEqual(
    declared.filter((row) => endpoints.has(row.endpoint)),
    promised,
  );
});
