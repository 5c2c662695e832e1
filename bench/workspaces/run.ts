/**
 * `npm run bench:workspaces`: what client workspaces cost.
 * 1. The route layer's cost of resolving an acting organization: `GET /api/organization/my` with
 *    `x-org-id` naming a business of the caller's agency against no header, process CPU per request
 *    (the service and its in-process client; the client's share is the same in both, so the
 *    difference is the resolution's).
 * 2. `GET /api/agency/businesses` (a page of 50) at BENCH_BUSINESSES businesses (default 1,000) and
 *    BENCH_USAGE_ROWS usage rows of this month (default 1,000,000) spread over them: the first
 *    request of a fresh app (cold: new connections, nothing prepared) and the p50 of the pages that
 *    follow, each page read once.
 * Sizes: BENCH_BUSINESSES, BENCH_USAGE_ROWS, BENCH_REQUESTS (default 2,000 per variant).
 */
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { createApp } from '../../app/app.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { testConfig } from '../../test/helpers/config.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';

const BUSINESSES = Number(process.env.BENCH_BUSINESSES ?? 1000);
const USAGE_ROWS = Number(process.env.BENCH_USAGE_ROWS ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const agency = ORGANIZATIONS.demoAgency.id;

const database = await createTestDatabase();
const db = database.pool;
await seedDemo(db);
await db.query(sql.unsafe`UPDATE organizations SET user_capacity = NULL WHERE id = ${agency}`);

const started = performance.now();
await db.query(sql.unsafe`
  INSERT INTO organizations (id, name, type, parent_id, created_at)
  SELECT id, 'Bench business ' || n, 'BUSINESS', ${agency}, now() - n * interval '1 minute'
  FROM unnest(${sql.array(
    Array.from({ length: BUSINESSES }, () => uuidv7()),
    'uuid',
  )}::uuid[]) WITH ORDINALITY AS b (id, n)`);
const businessIds = await db.anyFirst(sql.unsafe`SELECT id FROM organizations WHERE parent_id = ${agency} ORDER BY created_at DESC`);
const monthStart = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1));
const span = Math.max(1, Date.now() - monthStart.getTime());
for (let done = 0; done < USAGE_ROWS; done += 250_000) {
  const rows = Math.min(250_000, USAGE_ROWS - done);
  await db.query(sql.unsafe`
    INSERT INTO usage_events (id, organization_id, model_id, action_type, source, input_tokens, output_tokens, cache_read_tokens, cost_usd, created_at)
    SELECT gen_random_uuid(), (${sql.array(businessIds as string[], 'uuid')})[1 + (n % ${businessIds.length})],
           'bench-model', 'user_interaction', CASE WHEN n % 5 = 0 THEN 'byok' ELSE 'system' END::usage_source,
           100, 50, 0, 0.0001 * (1 + n % 7),
           ${sql.timestamp(monthStart)} + ((n::float8 / ${rows}) * ${span}) * interval '1 millisecond'
    FROM generate_series(1, ${rows}) AS n`);
}
await db.query(sql.unsafe`ANALYZE`);
const generatedSeconds = (performance.now() - started) / 1000;

const start = () => {
  const app = createApp({ db, config: testConfig(), logger: pino({ level: process.env.BENCH_LOG ?? 'silent' }), rateLimits: false });
  const server = app.listen(0, '127.0.0.1');
  return new Promise<{ port: number; close: () => void }>((resolve) =>
    server.once('listening', () => resolve({ port: (server.address() as AddressInfo).port, close: () => server.close() })),
  );
};
const agent = new Agent({ keepAlive: true, maxSockets: 8 });
const get = (port: number, path: string, headers: Record<string, string>) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });

let service = await start();
const login = await fetch(`http://127.0.0.1:${service.port}/api/identity/auth/user/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email: 'owner@demo.test', password: 'demo-password-1' }),
});
const token = ((await login.json()) as { accessToken: string }).accessToken;
const auth = { authorization: `Bearer ${token}` };

// 1. Resolution cost: alternate the variants in rounds so that load drifts hit both alike.
const cpu = { none: 0, business: 0 };
const wall = { none: [] as number[], business: [] as number[] };
const business = ORGANIZATIONS.demoBakery.id;
for (let round = 0; round < 10; round += 1) {
  for (const variant of ['none', 'business'] as const) {
    const headers = variant === 'none' ? auth : { ...auth, 'x-org-id': business };
    const before = process.cpuUsage();
    for (let i = 0; i < REQUESTS / 10; i += 1) {
      const t0 = performance.now();
      const answer = await get(service.port, '/api/organization/my', headers);
      wall[variant].push(performance.now() - t0);
      if (answer.status !== 200) throw new Error(`${variant}: ${answer.status} ${answer.body}`);
    }
    const used = process.cpuUsage(before);
    cpu[variant] += used.user + used.system;
  }
}
const perRequest = (variant: 'none' | 'business') => cpu[variant] / 1000 / REQUESTS;
const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

// 2. The clients list: a fresh app's first page (cold), then every page once.
service.close();
service = await start();
const pages: number[] = [];
let cursor: string | undefined;
let listed = 0;
for (;;) {
  const t0 = performance.now();
  const answer = await get(service.port, `/api/agency/businesses?limit=50${cursor ? `&before=${cursor}` : ''}`, auth);
  pages.push(performance.now() - t0);
  if (answer.status !== 200) throw new Error(`businesses: ${answer.status} ${answer.body}`);
  const body = JSON.parse(answer.body) as { businesses: Array<{ id: string }>; hasMore: boolean };
  listed += body.businesses.length;
  if (!body.hasMore) break;
  cursor = body.businesses.at(-1)!.id;
}
service.close();
agent.destroy();

const load = (await import('node:os')).loadavg()[0]!.toFixed(1);
const ms = (value: number) => value.toFixed(3);
process.stdout.write(
  [
    `load average (1 min) at the end: ${load}; ${BUSINESSES} businesses, ${USAGE_ROWS.toLocaleString('en')} usage rows this month (generated in ${generatedSeconds.toFixed(0)} s)`,
    '',
    '| measure | value | target |',
    '|---|---:|---:|',
    `| CPU per \`GET /api/organization/my\`, no \`x-org-id\` (service + in-process client) | ${ms(perRequest('none'))} ms | |`,
    `| CPU per \`GET /api/organization/my\`, \`x-org-id\` of a business | ${ms(perRequest('business'))} ms | |`,
    `| resolving the acting organization (the difference) | ${ms(perRequest('business') - perRequest('none'))} ms | <= 0.2 ms |`,
    `| wall p50, no header / business | ${ms(p50(wall.none))} / ${ms(p50(wall.business))} ms | |`,
    `| \`GET /api/agency/businesses?limit=50\`, first request of a fresh app (cold) | ${ms(pages[0]!)} ms | <= 300 ms |`,
    `| \`GET /api/agency/businesses?limit=50\`, p50 of the ${pages.length} pages (${listed} businesses) | ${ms(p50(pages))} ms | <= 300 ms |`,
    '',
  ].join('\n'),
);
await database.drop();
process.exit(0);
