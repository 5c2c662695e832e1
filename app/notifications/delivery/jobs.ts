import type { Logger } from 'pino';
import type { DatabasePool } from 'slonik';
import type { Config } from '../../config.ts';
import { PASSWORD_RESET_JOB, passwordResetJob } from '../../identity/password-reset.ts';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../identity/tokens.ts';
import type { OutboxJob } from './outbox-worker.ts';

/**
 * Every job queued through the outbox (ADR 0114), for the workers of `npm start` and of
 * `npm run cli -- outbox deliver`. A job runs with the worker's own dependencies.
 */
export function outboxJobs(
  db: DatabasePool,
  config: Config,
  logger: Logger,
  clock: () => Date = () => new Date(),
): Record<string, OutboxJob> {
  const deps = { db, redis: undefined, config, logger, clock, accessTokenTtlSeconds: ACCESS_TOKEN_TTL_SECONDS };
  return { [PASSWORD_RESET_JOB]: passwordResetJob(deps) };
}
