import { systemTimers } from './core/deps.ts';
import type { Logger } from 'pino';
import type { DatabasePool } from 'slonik';
import type { Config } from './config.ts';
import { PASSWORD_RESET_JOB, passwordResetJob } from './identity/password-reset.ts';
import { ACCESS_TOKEN_TTL_SECONDS } from './identity/tokens.ts';
import type { OutboxJob } from './notifications/delivery/outbox-worker.ts';

/**
 * Every job queued through the outbox (ADR 0114), for the workers of `npm start` and of
 * `npm run cli -- outbox deliver`. A job runs with the worker's own dependencies. Composed here,
 * beside the route list (app/routes.ts): the outbox runs the areas' jobs and no area's code, so
 * notifications/ imports no area that sends through it.
 */
export function outboxJobs(
  db: DatabasePool,
  config: Config,
  logger: Logger,
  clock: () => Date = () => new Date(),
): Record<string, OutboxJob> {
  const deps = { db, redis: undefined, config, logger, clock, timers: systemTimers, accessTokenTtlSeconds: ACCESS_TOKEN_TTL_SECONDS };
  return { [PASSWORD_RESET_JOB]: passwordResetJob(deps) };
}
