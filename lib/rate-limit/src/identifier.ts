import type { Context } from 'koa';
import { DEFAULT_IPV6_SUBNET, ipKey, type Ipv6Subnet } from './ip-key.ts';

/** How a declaration identifies the caller. */
export type IdentifierType = 'userId' | 'ip';

/** The verified user as far as the limiter cares. */
export interface RateLimitUser {
  sub?: string | number;
  id?: string | number;
}

/** Returns the verified user of a request, or nothing. Must verify (never a bare decode of a token). */
export type ResolveUser = (ctx: Context) => RateLimitUser | null | undefined | Promise<RateLimitUser | null | undefined>;

/** Returns the identifier part of a rate-limit key. */
export type ResolveIdentifier = (ctx: Context) => string | Promise<string>;

/**
 * Builds the default identifier resolver.
 * - `ip`: `ip:<address>` where the address is `ctx.ip` through {@link ipKey}: IPv4 as is, an
 *   IPv4-mapped IPv6 address as its IPv4 address, other IPv6 as its `ipv6Subnet` prefix
 *   (`ip:2001:db8:1:200::/56`). Trust of forwarding headers is the app's `proxy` / `maxIpsCount` setting;
 * - `userId`: `user:<sub or id>` of `resolveUser(ctx)` (default: `ctx.state.user`), else the `ip` identifier.
 *   A throwing `resolveUser` (e.g. a bad signature) counts as "no user".
 * The `ip:` / `user:` tags keep a user id that looks like an IP from sharing its bucket.
 */
export function defaultIdentifier(
  type: IdentifierType,
  resolveUser: ResolveUser = stateUser,
  ipv6Subnet: Ipv6Subnet = DEFAULT_IPV6_SUBNET,
): ResolveIdentifier {
  if (type === 'ip') return (ctx) => `ip:${ipKey(ctx.ip, ipv6Subnet)}`;
  return async (ctx) => {
    let user: RateLimitUser | null | undefined;
    try {
      user = await resolveUser(ctx);
    } catch {
      user = undefined;
    }
    const id = user?.sub ?? user?.id;
    return id === undefined || id === '' ? `ip:${ipKey(ctx.ip, ipv6Subnet)}` : `user:${String(id)}`;
  };
}

function stateUser(ctx: Context): RateLimitUser | undefined {
  const user: unknown = ctx.state['user'];
  return typeof user === 'object' && user !== null ? (user as RateLimitUser) : undefined;
}

/** Throws unless `value` is a known identifier type. */
export function assertIdentifierType(value: unknown): IdentifierType {
  if (value === 'userId' || value === 'ip') return value;
  throw new TypeError(`Invalid rate-limit identifierType ${JSON.stringify(value)}: expected "userId" or "ip"`);
}
