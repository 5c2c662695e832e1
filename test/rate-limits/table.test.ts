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
      const [endpoint, limit, window, identifier] = line
        .split('|')
        .slice(1, 5)
        .map((cell) => cell.trim());
      return { endpoint, limit: Number(limit), window, identifier };
    });
}

/** `15m` -> `15 min`, the fixture's spelling. */
const spelled = (windowMs: string) => windowMs.replace(/^(\d+)m$/, '$1 min');

test('the interface limits generated from the routes are the promised table of the interface document, row for row', (t) => {
  const documented = promisedLimits();
  t.is(documented.length, 13);
  // Generated in mounting order, the document has its own: compare both sorted by endpoint.
  const byEndpoint = (a: { endpoint?: string }, b: { endpoint?: string }) => (a.endpoint ?? '').localeCompare(b.endpoint ?? '');
  t.deepEqual(
    RATE_LIMITS.map((row) => ({
      endpoint: row.endpoint,
      limit: row.limit,
      window: spelled(row.windowMs),
      identifier: row.identifierType === 'ip' ? 'IP' : row.identifierType,
    })).sort(byEndpoint),
    [...documented].sort(byEndpoint),
  );
});
