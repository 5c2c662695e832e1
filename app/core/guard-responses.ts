import { Type, type TSchema } from '@sinclair/typebox';
import type { Response, Route } from './route.ts';
import { ErrorBody } from './schemas.ts';

/** The 429 body of app/core/rate-limit-body.ts. */
const RateLimitedBody = Type.Object({
  statusCode: Type.Literal(429),
  errorCode: Type.Literal('CORE.RATE_LIMIT_EXCEEDED'),
  message: Type.Object({ en: Type.String(), es: Type.String() }),
  metadata: Type.Object({ retryAfterSeconds: Type.Integer({ minimum: 1 }) }),
});

/** Tells whether a route is rate limited (app/rate-limits.ts `isRateLimited`). */
export type RateLimitedQuestion = (route: Route) => boolean;

/**
 * The 401, 403 and 429 that follow from a route's `auth`, `principal`/`policy` and rate limit
 * (ADR 0105): written here once, never by hand in a route file.
 */
export function guardResponses(route: Route, isRateLimited: RateLimitedQuestion): Record<number, Response> {
  const responses: Record<number, Response> = {};
  if (route.auth === 'jwt') responses[401] = { description: 'Missing or invalid access token', schema: ErrorBody };
  const refusals = [
    route.principal && `the token is not a ${route.principal}'s`,
    route.policy && `the caller lacks \`${route.policy.action}\` on \`${route.policy.subject}\``,
  ].filter(Boolean);
  if (refusals.length) responses[403] = { description: `Forbidden: ${refusals.join(', or ')}`, schema: ErrorBody };
  if (isRateLimited(route)) {
    responses[429] = { description: 'Rate limit exceeded; `Retry-After` says when to try again', schema: RateLimitedBody };
  }
  return responses;
}

/** A derived entry and a route's own entry for the same status: both descriptions, either body. */
export function merged(derived: Response | undefined, own: Response | undefined): Response {
  if (!derived || !own) return (derived ?? own) as Response;
  const schemas = [derived.schema, own.schema].filter((schema): schema is TSchema => schema !== undefined);
  const distinct = schemas.filter((schema, i) => schemas.indexOf(schema) === i);
  const schema = distinct.length > 1 ? Type.Union(distinct) : distinct[0];
  return { description: `${derived.description}; or ${own.description}`, ...(schema ? { schema } : {}) };
}
