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

test('the declared limits are the interface document table, row by row', (t) => {
  const documented = documentedLimits();
  t.is(documented.length, 13);
  t.deepEqual(
    RATE_LIMITS.map((row) => ({
      endpoint: row.endpoint,
      limit: row.limit,
      window: spelled(row.windowMs),
      identifier: row.identifierType === 'ip' ? 'IP' : row.identifierType,
    })),
    documented,
  );
});
