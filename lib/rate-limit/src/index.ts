// Public API of @agents/rate-limit: named re-exports only.
export type { CheckOptions, CheckResult, Clock, HitResult, Logger, StoreErrorPolicy } from './types.ts';
export type { Store } from './store.ts';
export { MemoryStore, type MemoryStoreOptions } from './memory-store.ts';
export { RedisStore, type DenyCacheOptions, type RedisScriptClient, type RedisStoreOptions } from './redis-store.ts';
export { SLIDING_LOG_BATCH_SCRIPT, SLIDING_LOG_SCRIPT } from './lua.ts';
export { ResilientStore, type ResilientStoreOptions } from './resilient-store.ts';
export {
  createSlidingWindowLimiter,
  type SlidingWindowLimiter,
  type SlidingWindowLimiterOptions,
} from './limiter.ts';
export { parseWindow } from './parse-window.ts';
export { RateLimiterUnavailableError, StoreTimeoutError } from './errors.ts';
export { rateLimit, type RateLimitOptions } from './koa.ts';
export { defaultErrorBody, type DenialInfo } from './error-body.ts';
export type { IdentifierType, RateLimitUser, ResolveIdentifier, ResolveUser } from './identifier.ts';
