import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createApp } from '../app/app.ts';
import type { AppDeps } from '../app/core/deps.ts';
import { seedDemo } from '../seeds/demo.ts';
import { testConfig } from '../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../test/helpers/database.ts';

/** Every line the app logged, as written (pino JSON). */
export class LogCapture {
  readonly lines: string[] = [];
  readonly stream = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
}

export type Harness = {
  db: TestDatabase;
  logs: LogCapture;
  /** The app under fuzz: rate limits off, so that every request reaches validation and the handler. */
  base: string;
  port: number;
  /** The same app with the documented rate limits on (memory store), for the 429 phase. */
  limitedPort: number;
  /** The deps of the app under fuzz (its analytics cache counters are read through them). */
  deps: AppDeps;
  close(): Promise<void>;
};

/** Bytes of the fuzzed app's analytics cache (the service's default is 64 MiB). */
const ANALYTICS_CACHE_BUDGET = 256 * 1024;

async function listen(server: Server): Promise<number> {
  if (!server.listening) await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/**
 * A fresh database (migrated template + demo seed) and the app on an OS-chosen loopback port,
 * in this process, logging into memory at level `info` (what production logs).
 */
export async function startHarness(): Promise<Harness> {
  const db = await createTestDatabase();
  await seedDemo(db.pool);
  const logs = new LogCapture();
  const logger = pino({ level: 'info' }, logs.stream);
  // A small analytics cache budget, so that the cache-fill case sees evictions within a short run.
  const config = testConfig({ nodeEnv: 'development', analyticsCacheMaxBytes: ANALYTICS_CACHE_BUDGET });
  const app = createApp({ db: db.pool, config, logger, rateLimits: false });
  const limited = createApp({ db: db.pool, config, logger });
  const server = app.listen(0, '127.0.0.1');
  const port = await listen(server);
  const limitedServer = limited.listen(0, '127.0.0.1');
  const limitedPort = await listen(limitedServer);
  return {
    db,
    logs,
    base: `http://127.0.0.1:${port}`,
    port,
    limitedPort,
    deps: app.deps,
    async close() {
      server.closeAllConnections();
      limitedServer.closeAllConnections();
      await Promise.all([new Promise((resolve) => server.close(resolve)), new Promise((resolve) => limitedServer.close(resolve))]);
      await db.drop();
    },
  };
}
