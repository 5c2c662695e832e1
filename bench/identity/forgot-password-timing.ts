/**
 * forgot-password timing: does the answer take longer for an email that has an account?
 * (issue 22: the difference told real accounts from unknown ones.) Builds a database on the
 * local PostgreSQL (a clone of the migrated template, demo data), runs the app on loopback with
 * the in-process outbox worker (as `npm start`; the log sender, into a null stream) and rate
 * limits off, then sends BENCH_REQUESTS (default 200) requests for a real account and as many
 * for unknown emails, interleaved in random order after a warm-up, one at a time over one
 * keep-alive connection. Prints the latency of each kind and the difference.
 *
 *   node --conditions=agents-source bench/identity/forgot-password-timing.ts
 */
import { Writable } from 'node:stream';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { createApp } from '../../app/app.ts';
import { startOutboxWorker } from '../../app/notifications/delivery/start.ts';
import { outboxJobs } from '../../app/outbox-jobs.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { USERS } from '../../seeds/demo-fixtures.ts';
import { testConfig } from '../../test/helpers/app.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const WARM_UP = 30;
/** BENCH_WORKER=0 leaves the outbox worker off (the request path alone). */
const WORKER = process.env.BENCH_WORKER !== '0';

const db = await createTestDatabase();
await seedDemo(db.pool);
const logger = pino({ level: 'info' }, new Writable({ write: (_chunk, _encoding, done) => done() }));
const config = testConfig({ nodeEnv: 'development' });
const app = createApp({ db: db.pool, config, logger, rateLimits: false });
const worker = WORKER ? startOutboxWorker(db.pool, config, logger, (outboxLogger) => outboxJobs(db.pool, config, outboxLogger)) : undefined;
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const { port } = server.address() as AddressInfo;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function forgot(email: string): Promise<number> {
  const body = JSON.stringify({ email });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        agent,
        method: 'POST',
        path: '/api/identity/auth/user/forgot-password',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 202 ? resolve(performance.now() - started) : reject(new Error(`status ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const kinds = { real: [] as number[], unknown: [] as number[] };
const order = Array.from({ length: REQUESTS * 2 }, (_, i) => (i % 2 === 0 ? 'real' : 'unknown') as keyof typeof kinds);
for (let i = order.length - 1; i > 0; i--) {
  const j = Math.floor(Math.random() * (i + 1));
  [order[i], order[j]] = [order[j]!, order[i]!];
}
for (let i = 0; i < WARM_UP; i++) {
  await forgot(USERS.owner.email);
  await forgot(`warm-${i}@nobody.test`);
}
let n = 0;
for (const kind of order) {
  n += 1;
  kinds[kind].push(await forgot(kind === 'real' ? USERS.owner.email : `nobody-${n}@nobody.test`));
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const quantile = (values: number[], q: number) => sorted(values)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const variance = (values: number[]) => values.reduce((a, v) => a + (v - mean(values)) ** 2, 0) / (values.length - 1);
/** Standard error of the difference of the two means (Welch). */
const standardError = Math.sqrt(variance(kinds.real) / kinds.real.length + variance(kinds.unknown) / kinds.unknown.length);
const row = (name: string, values: number[]) =>
  `| ${name} | ${values.length} | ${quantile(values, 0.5).toFixed(2)} | ${mean(values).toFixed(2)} | ${quantile(values, 0.9).toFixed(2)} | ${quantile(values, 0.99).toFixed(2)} |`;
const lines = [
  '| email | requests | p50 ms | mean ms | p90 ms | p99 ms |',
  '|---|---:|---:|---:|---:|---:|',
  row('real account', kinds.real),
  row('unknown', kinds.unknown),
  '',
  `real - unknown: p50 ${(quantile(kinds.real, 0.5) - quantile(kinds.unknown, 0.5)).toFixed(2)} ms, mean ${(mean(kinds.real) - mean(kinds.unknown)).toFixed(2)} ± ${standardError.toFixed(2)} ms (standard error); ratio of p50 ${(quantile(kinds.real, 0.5) / quantile(kinds.unknown, 0.5)).toFixed(3)}`,
];
process.stdout.write(`${lines.join('\n')}\n`);

await worker?.stop();
server.close();
agent.destroy();
await db.drop();
