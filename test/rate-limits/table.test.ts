import test from 'ava';
import { readFileSync } from 'node:fs';
import { RATE_LIMITS } from '../../app/rate-limits.ts';

/** The "Limits per endpoint" table of the interface document, read from the document itself. */
function documentedLimits() {
  const document = readFileSync(new URL('../../../shared/spec/service-interface.md', import.meta.url), 'utf8');
  const section = document.split('### Limits per endpoint')[1]!.split('\n### ')[0]!;
  return section
    .split('\n')
    .filter((line) => /^\| (GET|POST) /.test(line))
    .map((line) => {
      const [endpoint, limit, window, identifier] = line.split('|').slice(1, 5).map((cell) => cell.trim());
      return { endpoint, limit: Number(limit), window, identifier };
    });
}

/** `15m` -> `15 min`, the document's spelling. */
const spelled = (windowMs: string) => windowMs.replace(/^(\d+)m$/, '$1 min');

test("the interface limits generated from the routes are the interface document's table, row for row", (t) => {
  const documented = documentedLimits();
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
