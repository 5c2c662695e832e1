// Public API of @agents/rate-limit: named re-exports only. Nothing here loads or names ioredis or koa:
// the Koa middleware is `@agents/rate-limit/koa`, the Redis store `@agents/rate-limit/redis` (ADR 0098).
export type { CheckOptions, CheckResult, Clock, HitResult, Logger, StoreErrorPolicy } from './types.ts';
export type { Duration } from './duration.ts';
export type { Store } from './store.ts';
export { MemoryStore, type MemoryStoreOptions } from './memory-store.ts';
export { ResilientStore, type ResilientStoreOptions } from './resilient-store.ts';
export { createSlidingWindowLimiter, type SlidingWindowLimiter, type SlidingWindowLimiterOptions } from './limiter.ts';
export { parseWindow } from './parse-window.ts';
export { RateLimiterUnavailableError, StoreTimeoutError } from './errors.ts';
export { ipKey, DEFAULT_IPV6_SUBNET, type Ipv6Subnet } from './ip-key.ts';
