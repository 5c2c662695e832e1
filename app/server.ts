import type { Server } from 'node:http';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { ApprovalWatcher } from './chat/staff/expiry.ts';
import { BudgetWatcher } from './analytics/budget/watcher.ts';
import { UsagePartitionKeeper } from './analytics/partitions.ts';
import { createApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/open.ts';
import { createDatabasePool } from './db/pool.ts';
import { startOutboxWorker } from './notifications/delivery/start.ts';
import { chatTurns } from './chat/running-turns.ts';
import { evaluationRuns } from './evaluations/runner.ts';
import { Sweeper } from './core/sweeper.ts';
import { outboxJobs } from './outbox-jobs.ts';
import { prepareData } from '../seeds/prepare-data.ts';
import { DEMO_PASSWORD, USERS } from '../seeds/demo-fixtures.ts';

async function main() {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel });
  if (!config.databaseUrl) logger.info({ dataDir: config.dataDir }, 'using the embedded PGlite database');
  const database = await openDatabase(config, {
    onMigration: (name) => logger.info({ migration: name }, 'migration applied'),
  });
  await prepareData(database.pool, config, logger);
  // Never migrated (a standby is read-only); a replica down at start only sends reads to the primary.
  const replica = config.databaseReplicaUrl
    ? await createDatabasePool(config.databaseReplicaUrl, { connectionTimeoutMs: 1_000 })
    : undefined;

  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false })
    : undefined;
  redis?.on('error', (error) => logger.warn({ err: error }, 'redis connection error'));

  const app = createApp({ db: database.pool, replica, redis, config, logger });
  // Made now, so its Redis subscriber is connected before the first turn (docs/chat.md).
  const turns = chatTurns(app.deps);
  const outboxWorker = config.notifications.outboxWorker
    ? startOutboxWorker(database.pool, config, logger, (outboxLogger) => outboxJobs(database.pool, config, outboxLogger))
    : undefined;
  const budgetWatcher = new BudgetWatcher(app.deps);
  budgetWatcher.start();
  const approvalWatcher = new ApprovalWatcher(app.deps);
  approvalWatcher.start();
  const partitionKeeper = new UsagePartitionKeeper(app.deps);
  partitionKeeper.start();
  // Evaluation runs left by a stopped instance are taken over (docs/evaluations.md, "Runs").
  const evaluations = evaluationRuns(app.deps);
  const evaluationSweeper = new Sweeper(
    () => evaluations.sweep(),
    (error) => logger.warn({ err: error }, 'evaluation sweep failed'),
    5_000,
  );
  evaluationSweeper.start();
  const server: Server = app.listen(config.port, () => {
    // Where a person goes next: the console (and, with the demo data, who signs in there) and the API's docs.
    const base = config.publicBaseUrl.replace(/\/$/, '');
    const demo = config.seedDemo ? { demoSignIn: `${USERS.owner.email} / ${DEMO_PASSWORD}` } : {};
    logger.info({ port: config.port, node: process.version, console: `${base}/dashboard`, ...demo, docs: `${base}/api/docs` }, 'listening');
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new connections or chat turns, finishing in-flight requests');
    const closed = new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    // Chat turns run for up to SHUTDOWN_GRACE_MS, then are stopped and saved (docs/chat.md, "Shutdown");
    // their streams end with them. Whatever is still open then is cut.
    const began = Date.now();
    const stoppedSome = await turns.drain(config.shutdownGraceMs);
    // Other requests keep the rest of the grace; once stopped turns are saved, their streams have
    // ended, and a second later what is still open (streams of other instances' turns) is cut.
    const left = Math.max(stoppedSome ? 1_000 : 0, config.shutdownGraceMs - (Date.now() - began));
    const force = setTimeout(() => server.closeAllConnections(), left).unref();
    await closed;
    clearTimeout(force);
    await turns.close();
    await evaluationSweeper.stop();
    await evaluations.stop();
    await outboxWorker?.stop();
    await Promise.all([budgetWatcher.stop(), approvalWatcher.stop()]);
    await partitionKeeper.stop();
    await redis?.quit().catch(() => undefined);
    await replica?.end();
    await database.close();
    logger.info('stopped');
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    pino().fatal({ err: error }, 'start-up failed');
  }
  process.exitCode = 1;
});
