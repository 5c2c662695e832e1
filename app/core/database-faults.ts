import type { Context, Middleware, Next } from 'koa';
import compose from 'koa-compose';
import { isConnectionLoss } from '../db/connection-loss.ts';
import { serviceUnavailable, type CodedError } from './errors.ts';

/** Seconds a client is asked to wait after a 503 (the pool reconnects on the next request). */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/**
 * Runs `chain` (authentication, policy, validation and handler of one route) and answers a lost
 * database connection with 503 and `Retry-After` instead of 500.
 *
 * A read-only route is run once more first: the pool has dropped the dead connection, so the
 * second run gets a fresh one. Writes are never re-run: a transaction cut off before COMMIT was
 * rolled back by PostgreSQL, so the client may safely send it again (ADR 0065).
 */
export function databaseFaults(chain: Middleware[], options: { readOnly: boolean }): Middleware {
  const run = compose(chain);

  return async function answerDatabaseFaults(ctx: Context, _next: Next) {
    try {
      await run(ctx);
      return;
    } catch (error) {
      if (!isConnectionLoss(error)) throw error;
      if (!options.readOnly) throw unavailable(ctx, error);
      ctx.state.databaseRetried = true;
    }
    try {
      await run(ctx);
    } catch (error) {
      if (!isConnectionLoss(error)) throw error;
      throw unavailable(ctx, error);
    }
  };
}

function unavailable(ctx: Context, cause: unknown): CodedError {
  // Headers set before the throw survive the error middleware (it keeps the rate-limit headers the same way).
  ctx.set('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
  return serviceUnavailable(cause, DATABASE_RETRY_AFTER_SECONDS);
}
