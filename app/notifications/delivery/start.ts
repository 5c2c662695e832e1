import type { Logger } from 'pino';
import type { DatabasePool } from 'slonik';
import type { Config } from '../../config.ts';
import { OutboxWorker, type OutboxJob } from './outbox-worker.ts';
import { sendersFor } from './senders.ts';

/**
 * The in-process outbox worker of `npm start` (off with `OUTBOX_WORKER=false`); `jobs` builds the
 * queued jobs' runners (app/outbox-jobs.ts) with the worker's logger.
 */
export function startOutboxWorker(
  db: DatabasePool,
  config: Config,
  logger: Logger,
  jobs: (logger: Logger) => Record<string, OutboxJob>,
): OutboxWorker {
  const senders = sendersFor(config, logger.child({ component: 'outbox' }));
  const outboxLogger = logger.child({ component: 'outbox' });
  const worker = new OutboxWorker({
    db,
    keyring: config.credentialsKeyring,
    senders,
    logger: outboxLogger,
    jobs: jobs(outboxLogger),
  });
  for (const channel of ['email', 'sms'] as const) {
    if (!senders[channel]) logger.warn({ channel }, `no ${channel} sender configured: ${channel} messages stay queued in the outbox`);
  }
  worker.start();
  return worker;
}
