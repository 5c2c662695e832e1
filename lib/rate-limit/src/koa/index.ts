// Public API of @agents/rate-limit/koa: the Koa middleware and the types of its options. Named re-exports only.
export { rateLimit, type RateLimitOptions } from './middleware.ts';
export { defaultErrorBody, type DenialInfo } from '../error-body.ts';
export type { IdentifierType, RateLimitUser, ResolveIdentifier, ResolveUser } from '../identifier.ts';
export type { Ipv6Subnet } from '../ip-key.ts';
