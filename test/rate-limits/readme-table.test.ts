import test from 'ava';
import { readFileSync } from 'node:fs';
import { TABLE_PAGE, renderRateLimitTable, tableIn } from '../../bin/docs/rate-limit-table.ts';
import { rateLimitedRoutes } from '../../app/core/route-rate-limit.ts';
import { ALL_RATE_LIMITS } from '../../app/rate-limits.ts';
import { areaRoutes } from '../../app/routes.ts';

test("docs/rate-limit.md's rate-limit table is the one generated from the routes' declarations", (t) => {
  t.is(tableIn(readFileSync(TABLE_PAGE, 'utf8')), renderRateLimitTable(ALL_RATE_LIMITS));
});

test('the list of limited routes is generated from the routes: the 13 of the interface first, then the project', (t) => {
  const generated = rateLimitedRoutes(areaRoutes);
  t.deepEqual(ALL_RATE_LIMITS, generated);
  t.is(generated.filter((row) => row.source === 'interface').length, 13);
  t.is(
    generated.findIndex((row) => row.source === 'project'),
    13,
  );
  t.is(new Set(generated.map((row) => row.endpoint)).size, generated.length);
});

const rateLimitOf = (endpoint: string) => ALL_RATE_LIMITS.find((row) => row.endpoint === endpoint);

test('the generated list holds a limited route under its endpoint, and not an unlimited one', (t) => {
  t.like(rateLimitOf('POST /api/identity/auth/client/login'), { limit: 10, windowMs: '15m', identifierType: 'ip', source: 'interface' });
  t.like(rateLimitOf('GET /api/ai/mcp-oauth/callback'), {
    limit: 20,
    identifierType: 'ip',
    policyName: 'mcp-oauth-callback',
    source: 'project',
  });
  t.is(rateLimitOf('GET /api/ai/agents'), undefined);
});

test('a changed limit shows in the generated table, so a stale docs/rate-limit.md fails the first test', (t) => {
  const changed = ALL_RATE_LIMITS.map((row) => (row.endpoint === 'POST /api/notifications/sms/test' ? { ...row, limit: 4 } : row));
  t.not(renderRateLimitTable(changed), renderRateLimitTable(ALL_RATE_LIMITS));
  t.regex(renderRateLimitTable(changed), /\| `POST \/api\/notifications\/sms\/test` \| 4 \| 5 min \| IP \| interface \|/);
});
