// The Redis side of the sliding log: one script, one round trip, atomic per key.

/**
 * Sliding-log check-and-record on a sorted set whose scores are Redis server time in microseconds.
 *
 * KEYS[1] - the sliding-log ZSET of one (endpoint, identifier) pair
 * ARGV[1] - window length in milliseconds (positive integer)
 * ARGV[2] - limit: maximum entries per window (positive integer)
 * ARGV[3] - member: unique per call (store instance id + sequence), so concurrent hits never collide
 *
 * Returns { allowed (1|0), count after the call, oldest score (µs), server now (µs) }.
 *
 * The clock is the Redis server's (`TIME`), so app instances with skewed clocks agree.
 * `TIME` before a write is allowed because scripts replicate their effects (Redis >= 5; the default, and the only mode on 7).
 * Entries with age >= window are dropped; denied calls write nothing, so they never extend the window.
 * Every allowed call re-arms the TTL to the window, so the key disappears when its newest entry leaves the window.
 */
export const SLIDING_LOG_SCRIPT = `
local key = KEYS[1]
local window_ms = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local time = redis.call('TIME')
local now_us = tonumber(time[1]) * 1000000 + tonumber(time[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now_us - window_ms * 1000)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now_us, ARGV[3])
  redis.call('PEXPIRE', key, window_ms)
  count = count + 1
  allowed = 1
  -- Fast path: the entry just added is the only one, hence the oldest.
  if count == 1 then return { 1, 1, now_us, now_us } end
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return { allowed, count, oldest[2], now_us }
`;
