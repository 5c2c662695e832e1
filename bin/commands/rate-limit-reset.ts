import { isIP } from 'node:net';
import { Redis } from 'ioredis';
import { ipKey } from '@agents/rate-limit';
import { RedisStore } from '@agents/rate-limit/redis';
import { loadConfig } from '../../app/config.ts';
import {
  ALL_RATE_LIMITS,
  RATE_LIMIT_KEY_PREFIX,
  RATE_LIMIT_DENY_CACHE_MAX_AGE_MS,
  policyNameOf,
  type RateLimitDeclaration,
} from '../../app/rate-limits.ts';
import { CliError, say } from '../cli-context.ts';

/** A route as the operator may name it: `POST /api/identity/auth/user/login` or its policy name `user-login`. */
function findDeclaration(route: string): RateLimitDeclaration {
  const wanted = route.trim().replace(/\s+/g, ' ');
  const found = ALL_RATE_LIMITS.find((d) => d.endpoint.toUpperCase() === wanted.toUpperCase() || policyNameOf(d) === wanted);
  if (found !== undefined) return found;
  throw new CliError(
    `--route: no rate limit declared for ${JSON.stringify(route)}; known: ${ALL_RATE_LIMITS.map(policyNameOf).join(', ')}`,
  );
}

/**
 * The identifier segment a request of this client counted under: `ip:<address>` as the limiter
 * keys it (an IPv4-mapped IPv6 address as its IPv4 address, other IPv6 as its
 * `RATE_LIMIT_IPV6_PREFIX` network: resetting one address resets its whole prefix), or
 * `user:<id>` on a route limited by user, `org:<id>` on one limited by organization.
 */
function identifiersOf(declaration: RateLimitDeclaration, identifier: string, ipv6Prefix: number): string[] {
  const value = identifier.trim();
  if (value === '') throw new CliError('--identifier must not be empty');
  if (isIP(value) !== 0) return [`ip:${ipKey(value, ipv6Prefix)}`];
  if (declaration.identifierType === 'userId') return [`user:${value}`];
  if (declaration.identifierType === 'apiKey') return [`key:${value}`, `user:${value}`];
  if (declaration.identifierType === 'organization') return [`org:${value}`];
  throw new CliError(`--identifier: ${declaration.endpoint} is limited by IP address, and ${JSON.stringify(value)} is not one`);
}

/** `rate-limit reset`: forgets the requests `identifier` made to `route` in the Redis of REDIS_URL. */
export async function resetRateLimit(options: { route: string; identifier: string }): Promise<void> {
  const declaration = findDeclaration(options.route);
  const { redisUrl, rateLimitIpv6Prefix } = loadConfig();
  const identifiers = identifiersOf(declaration, options.identifier, rateLimitIpv6Prefix);
  if (redisUrl === undefined) {
    throw new CliError(
      'REDIS_URL is not set: without Redis the counters live in the memory of each server process, ' +
        'which this command cannot reach; restarting the server clears them',
    );
  }
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect().catch((error: unknown) => {
      throw new CliError(`cannot reach Redis at REDIS_URL: ${(error as Error).message}`);
    });
    const store = new RedisStore(redis, { timeoutMs: 5_000 });
    for (const identifier of identifiers) await store.reset(`${RATE_LIMIT_KEY_PREFIX}:${declaration.endpoint}:${identifier}`);
    say(
      `reset ${declaration.endpoint} for ${identifiers.join(' and ')}; running servers stop answering ` +
        `from their deny cache within ${RATE_LIMIT_DENY_CACHE_MAX_AGE_MS / 1000} s`,
    );
  } finally {
    redis.disconnect();
  }
}
