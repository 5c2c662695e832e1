/**
 * The service under test in the chat and ingest benches, in a process of its own so that its CPU
 * and RSS are read apart from the clients (bench/service-process.ts forks it). Reads
 * `BENCH_DATABASE_URL`, `BENCH_NODE_ENV` (default development) and, for the chat bench,
 * `BENCH_GATEWAY_URL` and `BENCH_TITLE_MODEL` (`AI_TITLE_MODEL`); the route limits are off (the benches measure the paths behind them).
 * Listens on a loopback port and reports it to the parent over IPC; collects garbage on `gc`,
 * samples its CPU between `profile-start` and `profile-stop` (the profile is written into
 * `.data-bench/` and its path sent back) and ends on `stop`. After each `gc`, `BENCH_MEMORY=1`
 * prints its `process.memoryUsage()` (heap, external, array buffers) to stderr and
 * `BENCH_HEAP_SNAPSHOT=1` writes a V8 heap snapshot into `.data-bench/` (what the memory holds).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { writeHeapSnapshot } from 'node:v8';
import pg from 'pg';
import { pino } from 'pino';
import { createApp } from '../app/app.ts';
import { createDatabasePool } from '../app/db/pool.ts';
import { testConfig } from '../test/helpers/app.ts';

// Every statement sent to PostgreSQL (one round trip each, BEGIN and COMMIT included), by its
// first words: the bench reads the counts between `queries` messages (round trips per turn).
const statements = new Map<string, number>();
const sendQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { text?: string };
  const text = typeof first === 'string' ? first : (first?.text ?? '');
  const label = text.replace(/\s+/g, ' ').trim().slice(0, 60);
  statements.set(label, (statements.get(label) ?? 0) + 1);
  return sendQuery.apply(this, args);
} as typeof pg.Client.prototype.query;

const pool = await createDatabasePool(process.env.BENCH_DATABASE_URL!, { maximumPoolSize: 20 });
const nodeEnv = process.env.BENCH_NODE_ENV === 'production' ? 'production' : 'development';
const config = testConfig({ nodeEnv, logLevel: 'silent' });
const gatewayUrl = process.env.BENCH_GATEWAY_URL;
const titleModel = process.env.BENCH_TITLE_MODEL;
const ai = { ...config.ai, ...(titleModel ? { titleModel } : {}) };
const app = createApp({
  db: pool,
  config: { ...config, ai: gatewayUrl ? { ...ai, gatewayUrl, gatewayApiKey: 'sk-bench', providerTimeoutMs: 120_000 } : ai },
  logger: pino({ level: 'silent' }),
  rateLimits: false,
});
const server = app.listen(0, '127.0.0.1');
await new Promise<void>((resolve) => server.once('listening', resolve));
process.send!({ port: (server.address() as AddressInfo).port });
const inspector = new Session();
inspector.connect();
process.on('message', async (message) => {
  if (message === 'profile-start') {
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.start');
    process.send!({ profiling: true });
  }
  if (message === 'profile-stop') {
    const { profile } = await inspector.post('Profiler.stop');
    mkdirSync('.data-bench', { recursive: true });
    const path = `.data-bench/service-${Date.now()}.cpuprofile`;
    writeFileSync(path, JSON.stringify(profile));
    process.send!({ profile: path });
  }
  if (message === 'queries') {
    process.send!({ queries: Object.fromEntries(statements) });
    statements.clear();
  }
  if (message === 'gc') {
    // Run with --expose-gc by the bench: RSS is read after a full collection.
    (globalThis as { gc?: () => void }).gc?.();
    if (process.env.BENCH_MEMORY) {
      const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
      const usage = process.memoryUsage();
      process.stderr.write(
        `service memory: rss ${mb(usage.rss)}, heap used ${mb(usage.heapUsed)} of ${mb(usage.heapTotal)}, external ${mb(usage.external)}, array buffers ${mb(usage.arrayBuffers)}\n`,
      );
    }
    if (process.env.BENCH_HEAP_SNAPSHOT) {
      mkdirSync('.data-bench', { recursive: true });
      process.stderr.write(`heap snapshot: ${writeHeapSnapshot(`.data-bench/service-${Date.now()}.heapsnapshot`)}\n`);
    }
    process.send!({ gc: true });
  }
  if (message !== 'stop') return;
  server.closeAllConnections();
  server.close();
  // A normal exit writes the `--cpu-prof` profile when one was asked for.
  void pool.end().then(() => process.exit(0));
});
