// Public API of @agents/rate-limit/redis: the store on ioredis, apart from the main entry so that
// MemoryStore users need neither ioredis nor its types (ADR 0098). Named re-exports only.
export { RedisStore, type DenyCacheOptions, type RedisScriptClient, type RedisStoreOptions } from '../redis-store.ts';
export { SLIDING_LOG_BATCH_SCRIPT, SLIDING_LOG_SCRIPT } from '../lua.ts';
