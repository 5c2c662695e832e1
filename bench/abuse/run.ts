/**
 * Abuse bench (issue 37): what a refused or bounded hostile request costs the service, beside
 * the ordinary request of the same route as the named peer. The service runs in a process of its
 * own (bench/service-child.ts, NODE_ENV=production, limits off so every request reaches the path
 * measured); requests go one at a time, so the median answer time is the request's own, and the
 * service's CPU per request is read from /proc. `GET /api/health` is then polled back to back
 * during ten more of each OTLP request (apart, so its CPU is not the row's); RSS is read after a collection before and after them.
 *
 * The document rows (bench/abuse/documents.ts) come first.
 *
 *   npm run bench:abuse
 *   BENCH_ABUSE_REPEATS=50 npm run bench:abuse
 *   BENCH_ABUSE_ONLY=documents npm run bench:abuse
 */
import { availableParallelism, loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import { newApiKeySecret } from '../../app/core/api-key-secret.ts';
import { OTLP_MAX_SPANS } from '../../app/otlp/request-body.ts';
import { emptySpansRequest, NESTING_BOMB_JSON } from '../../fuzz/bombs.ts';
import { AGENTS, DEMO_PASSWORD, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { insertApiKey } from '../../sql/api-keys.ts';
import { TEST_JWT_SECRET } from '../../test/helpers/config.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { cpuMsOf, rssAfterGc, rssMbOf, startService, stopService } from '../service-process.ts';
import { documentRows, documentTable } from './documents.ts';

const REPEATS = Number(process.env.BENCH_ABUSE_REPEATS ?? 30);
/** `documents`: only the document rows (issue 47); `requests`: only the others; default both. */
const ONLY = process.env.BENCH_ABUSE_ONLY;
const log = (line: string) => process.stderr.write(`${line}\n`);

type Case = { name: string; path: string; headers: Record<string, string>; body: Buffer; peer?: string };
type Row = { name: string; statuses: string; medianMs: number; cpuMs: number; peer?: string; bytes: number; health?: string };

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function measure(base: string, pid: number, spec: Case, pollHealth: boolean): Promise<Row> {
  const send = async () => {
    const started = performance.now();
    const response = await fetch(`${base}${spec.path}`, { method: 'POST', headers: spec.headers, body: spec.body });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - started };
  };
  for (let i = 0; i < 10; i++) await send(); // warm-up, not counted
  // Answer time and CPU alone: health checks polled meanwhile would add their own CPU to the row.
  const cpuBefore = cpuMsOf(pid);
  const samples: Array<{ status: number; ms: number }> = [];
  for (let i = 0; i < REPEATS; i++) samples.push(await send());
  const cpuMs = (cpuMsOf(pid) - cpuBefore) / REPEATS;
  const statuses = [...new Set(samples.map((sample) => sample.status))].join(',');
  const row: Row = {
    name: spec.name,
    statuses,
    medianMs: median(samples.map((sample) => sample.ms)),
    cpuMs,
    bytes: spec.body.length,
    ...(spec.peer ? { peer: spec.peer } : {}),
  };
  if (!pollHealth) return row;
  // Then the same requests again, 10 of them, with /api/health polled back to back.
  const health: number[] = [];
  let done = false;
  const polling = (async () => {
    while (!done) {
      const started = performance.now();
      await (await fetch(`${base}/api/health`)).arrayBuffer();
      health.push(performance.now() - started);
    }
  })();
  for (let i = 0; i < 10; i++) await send();
  done = true;
  await polling;
  return { ...row, health: `${health.length} checks, median ${median(health).toFixed(1)} / max ${Math.max(...health).toFixed(1)} ms` };
}

async function main() {
  const db = await createTestDatabase();
  await seedDemo(db.pool);
  const secret = newApiKeySecret(TEST_JWT_SECRET);
  await insertApiKey(db.pool, {
    id: '01900000-0000-7000-8000-00000000a37a',
    organizationId: ORGANIZATIONS.demoAgency.id,
    name: 'bench abuse',
    scopes: ['usage:write'],
    prefix: secret.prefix,
    keyHash: secret.hash,
    createdBy: null,
    createdAt: new Date(),
  });
  const { child, base } = await startService({ databaseUrl: db.url, nodeEnv: 'production' });
  const pid = child.pid!;
  const madeUpKey = `Bearer agk_${'f'.repeat(43)}`;
  const json = { 'content-type': 'application/json' };
  const gzipJson = { ...json, 'content-encoding': 'gzip' };
  const bomb = gzipSync(NESTING_BOMB_JSON, { level: 9 });
  const protobuf = { authorization: `Bearer ${secret.key}`, 'content-type': 'application/x-protobuf' };
  const refused: Case[] = [
    {
      name: 'made-up key, `{}` (peer)',
      path: '/api/ai/org-usage/events',
      headers: { ...json, authorization: madeUpKey },
      body: Buffer.from('{}'),
    },
    {
      name: 'made-up key, 1 KB gzip nesting bomb',
      path: '/api/ai/org-usage/events',
      headers: { ...gzipJson, authorization: madeUpKey },
      body: bomb,
      peer: 'made-up key, `{}` (peer)',
    },
    {
      name: 'bad token, 1 KB gzip nesting bomb, POST /api/ai/agents',
      path: '/api/ai/agents',
      headers: { ...gzipJson, authorization: 'Bearer not-a-token' },
      body: bomb,
      peer: 'made-up key, `{}` (peer)',
    },
    {
      name: 'bad token, 1 MiB plain nesting, POST /api/ai/agents',
      path: '/api/ai/agents',
      headers: { ...json, authorization: 'Bearer not-a-token' },
      body: Buffer.from(NESTING_BOMB_JSON),
      peer: 'made-up key, `{}` (peer)',
    },
    {
      name: 'valid key, `{}` (400 at the schema, peer)',
      path: '/api/ai/org-usage/events',
      headers: { ...json, authorization: `Bearer ${secret.key}` },
      body: Buffer.from('{}'),
    },
    {
      name: 'valid key, 1 KB gzip nesting bomb (400 past 64 levels)',
      path: '/api/ai/org-usage/events',
      headers: { ...gzipJson, authorization: `Bearer ${secret.key}` },
      body: bomb,
      peer: 'valid key, `{}` (400 at the schema, peer)',
    },
  ];
  const spans512 = emptySpansRequest(512);
  const otlp: Case[] = [
    { name: 'OTLP 512 empty spans (peer)', path: '/api/otlp/v1/traces', headers: protobuf, body: spans512 },
    {
      name: `OTLP ${OTLP_MAX_SPANS} empty spans (the most accepted)`,
      path: '/api/otlp/v1/traces',
      headers: protobuf,
      body: emptySpansRequest(OTLP_MAX_SPANS),
      peer: 'OTLP 512 empty spans (peer)',
    },
    {
      name: 'OTLP 8 KB gzip bomb, 4,194,296 spans (413)',
      path: '/api/otlp/v1/traces',
      headers: { ...protobuf, 'content-encoding': 'gzip' },
      body: gzipSync(emptySpansRequest(4_194_296), { level: 9 }),
      peer: 'OTLP 512 empty spans (peer)',
    },
    {
      name: 'OTLP 4 KB gzip bomb, 2,000,000 spans in 4 MiB (400)',
      path: '/api/otlp/v1/traces',
      headers: { ...protobuf, 'content-encoding': 'gzip' },
      body: gzipSync(emptySpansRequest(2_000_000), { level: 9 }),
      peer: 'OTLP 512 empty spans (peer)',
    },
  ];
  const rows: Row[] = [];
  try {
    if (ONLY !== 'requests') {
      const login = await fetch(`${base}/api/identity/auth/user/login`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ email: USERS.owner.email, password: DEMO_PASSWORD }),
      });
      const { accessToken } = (await login.json()) as { accessToken: string };
      const documents = await documentRows({ base, child, token: accessToken, agentId: AGENTS.research.id }, log);
      const load = loadavg()
        .map((value) => value.toFixed(2))
        .join(' ');
      process.stdout.write(
        [
          `abuse bench, documents, ${new Date().toISOString()}, service NODE_ENV=production, ${availableParallelism()} cores, load average ${load}`,
          '',
          ...documentTable(documents),
          '',
        ].join('\n'),
      );
    }
    if (ONLY === 'documents') return;
    for (const spec of refused) {
      log(`measuring ${spec.name}`);
      rows.push(await measure(base, pid, spec, false));
    }
    const rssBefore = await rssAfterGc(child);
    let rssPeak = rssBefore;
    for (const spec of otlp) {
      log(`measuring ${spec.name}`);
      rows.push(await measure(base, pid, spec, true));
      rssPeak = Math.max(rssPeak, rssMbOf(pid));
    }
    const rssAfter = await rssAfterGc(child);
    const byName = new Map(rows.map((row) => [row.name, row]));
    const lines = [
      `abuse bench, ${new Date().toISOString()}, ${REPEATS} requests per row, one at a time, service NODE_ENV=production`,
      '',
      '| request | body bytes | status | median answer ms | service CPU ms/request | CPU vs peer | health during |',
      '|---|---:|---|---:|---:|---:|---|',
      ...rows.map((row) => {
        const peer = row.peer ? byName.get(row.peer) : undefined;
        const ratio = peer && peer.cpuMs > 0 ? `${(row.cpuMs / peer.cpuMs).toFixed(2)}x` : '–';
        return `| ${row.name} | ${row.bytes} | ${row.statuses} | ${row.medianMs.toFixed(2)} | ${row.cpuMs.toFixed(2)} | ${ratio} | ${row.health ?? '–'} |`;
      }),
      '',
      `service RSS after GC: ${rssBefore.toFixed(0)} MB before the OTLP rows, ${rssAfter.toFixed(0)} MB after (highest read between rows ${rssPeak.toFixed(0)} MB)`,
      'CPU per request is /proc utime+stime over the row (10 ms ticks): read it as an average over the repeats.',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await stopService(child);
    await db.drop();
  }
}

await main();
