import bodyParser from 'koa-bodyparser';
import type { Middleware } from 'koa';
import { HttpError, ValidationError } from './errors.ts';

/**
 * Parses a JSON body into `ctx.request.body`. Mounted per route after the rate limiter
 * (app/core/mount.ts), so that a request with malformed JSON or an oversized body counts
 * against the limit like any other (docs/interface.md §8: every request counts, whatever its body).
 * Bodies of other content types are left unread; a route with a body schema answers them 415.
 *
 * @param limitBytes largest accepted body in bytes (`BODY_LIMIT_BYTES`); larger ones get 413.
 */
export function jsonBody(limitBytes: number): Middleware {
  return bodyParser({
    enableTypes: ['json'],
    jsonLimit: `${limitBytes}b`,
    strict: true,
    // co-body marks too-large bodies 413 and everything else it refuses 400 (unparseable JSON).
    onerror: (error) => {
      if ((error as { status?: number }).status === 413) throw new HttpError(413, 'Payload too large');
      throw new ValidationError([{ path: [], message: 'Malformed JSON' }]);
    },
  });
}
