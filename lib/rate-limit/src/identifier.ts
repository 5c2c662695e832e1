import type { Context } from 'koa';

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
 * - `ip`: `ip:<ctx.ip>` (trust of forwarding headers is the app's `proxy` / `maxIpsCount` setting);
 * - `userId`: `user:<sub or id>` of `resolveUser(ctx)` (default: `ctx.state.user`), else `ip:<ctx.ip>`.
 *   A throwing `resolveUser` (e.g. a bad signature) counts as "no user".
 * The `ip:` / `user:` tags keep a user id that looks like an IP from sharing its bucket.
 */
export function defaultIdentifier(type: IdentifierType, resolveUser: ResolveUser = stateUser): ResolveIdentifier {
  if (type === 'ip') return (ctx) => `ip:${ctx.ip}`;
  return async (ctx) => {
    let user: RateLimitUser | null | undefined;
    try {
      user = await resolveUser(ctx);
    } catch {
      user = undefined;
    }
    const id = user?.sub ?? user?.id;
    return id === undefined || id === '' ? `ip:${ctx.ip}` : `user:${String(id)}`;
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
