import { PRODUCT_BRAND } from '../branding/brand.ts';
import type { Static } from '@sinclair/typebox';
import type { Context } from 'koa';
import { uuidv7 } from 'uuidv7';
import { findChannelByKey, type ChannelWithSecret } from '../../sql/channels.ts';
import { findVisitor, insertVisitor, upsertKnownEndUser, type EndUser } from '../../sql/end-users.ts';
import { findUserProfile } from '../../sql/users.ts';
import { bearerToken, verifyAccessToken } from '../core/auth.ts';
import type { AppDeps } from '../core/deps.ts';
import { readableLine } from '../core/schemas.ts';
import { openJson } from '../crypto/credentials.ts';
import { channelNotFound, endUserNotVerified, originNotAllowed } from './errors.ts';
import { allowOrigin, originAllowed } from './origins.ts';
import { channelSecretContext } from './routes.ts';
import { endUserKindOf } from '../chat/schemas.ts';
import type { SessionBody, SessionSchema } from './schemas.ts';
import { isUserHash, newVisitorToken, visitorTokenHash } from './secrets.ts';
import { serviceOrigin } from './session-auth.ts';
import { SESSION_TTL_SECONDS, signSessionToken } from './session-token.ts';

/** How long a visitor token names its anonymous end user. */
export const VISITOR_TOKEN_DAYS = 90;

/**
 * An end user's session on a channel (`POST /api/public/sessions`, docs/channel.md), in this order:
 * 1. the publishable key names an enabled channel of an agent in use (else 404 `AI.CHANNEL_NOT_FOUND`);
 * 2. a page's `Origin` is one the channel allows, or the service's own (else 403
 *    `AI.ORIGIN_NOT_ALLOWED`); the answer then carries CORS headers for it. Without an `Origin`
 *    (a server calling), only a verified session is made (else 403 as well);
 * 3. who the end user is: a `client` access token of the channel's organization (any other token
 *    is 401 `AI.END_USER_NOT_VERIFIED`); else a `user` whose `hash` is the HMAC of the channel's secret (401
 *    `AI.END_USER_NOT_VERIFIED` otherwise, and for a verified-only channel without one); else an
 *    anonymous visitor, the one its `visitorToken` names, or a new one with a new token.
 */
export async function openSession(deps: AppDeps, ctx: Context, body: Static<typeof SessionBody>): Promise<Static<typeof SessionSchema>> {
  const channel = await findChannelByKey(deps.db, body.publishableKey);
  if (!channel) throw channelNotFound();
  const origin = ctx.get('origin');
  if (origin !== '') {
    if (!originAllowed(channel.allowedOrigins, origin, serviceOrigin(deps))) throw originNotAllowed();
    allowOrigin(ctx, origin);
  }
  const now = deps.clock();
  const known = await knownEndUser(deps, ctx, channel, body, now);
  if (!known && origin === '') throw originNotAllowed();
  const visitor = known ? undefined : await visitorOf(deps, channel, body.visitorToken, now);
  const endUser = known ?? visitor!.endUser;
  const brand = channel.brand ?? PRODUCT_BRAND;
  const sessionToken = signSessionToken(
    { endUserId: endUser.id, agentId: channel.agentId, organizationId: channel.organizationId },
    deps.config.jwtSecret,
    now,
  );
  return {
    sessionToken,
    expiresIn: SESSION_TTL_SECONDS,
    endUser: { id: endUser.id, verified: endUser.kind !== 'anonymous', kind: endUserKindOf(endUser.kind) },
    ...(visitor ? { visitorToken: visitor.token } : {}),
    agent: { name: channel.agentName, greeting: channel.greeting },
    approvals: channel.approvals,
    brand: { productName: brand.productName, primaryColor: brand.primaryColor },
  };
}

/** The end user a client token or a verified `user` names, or undefined for an anonymous session. */
async function knownEndUser(
  deps: AppDeps,
  ctx: Context,
  channel: ChannelWithSecret,
  body: Static<typeof SessionBody>,
  now: Date,
): Promise<EndUser | undefined> {
  const token = bearerToken(ctx);
  const common = { id: uuidv7(), organizationId: channel.organizationId, agentId: channel.agentId, now };
  if (token !== undefined) {
    const claims = verifyAccessToken(token, deps.config.jwtSecret, deps.clock());
    if (!claims || claims.type !== 'client' || claims.organizationId !== channel.organizationId) throw endUserNotVerified();
    const client = await findUserProfile(deps.db, claims.userId);
    if (!client || client.organizationId !== channel.organizationId) throw endUserNotVerified();
    // The account's name is what its owner typed (one line since registration checks it; older or Google-given ones are made so).
    return upsertKnownEndUser(deps.db, {
      ...common,
      kind: 'client',
      externalId: client.id,
      name: readableLine(client.name),
      email: client.email,
    });
  }
  if (body.user) {
    const secret =
      channel.secretKeyId && channel.secretCiphertext
        ? openJson<string>(
            deps.config.credentialsKeyring,
            { keyId: channel.secretKeyId, ciphertext: channel.secretCiphertext },
            channelSecretContext(channel.agentId),
          )
        : undefined;
    if (secret === undefined || !isUserHash(secret, body.user.id, body.user.hash)) throw endUserNotVerified();
    return upsertKnownEndUser(deps.db, {
      ...common,
      kind: 'verified',
      externalId: body.user.id,
      name: body.user.name ?? null,
      email: body.user.email ?? null,
    });
  }
  if (channel.identity === 'verified') throw endUserNotVerified();
  return undefined;
}

/** The anonymous end user `token` names on this channel, or a new one with a new token (a token of another channel, run out or made up names none). */
async function visitorOf(deps: AppDeps, channel: ChannelWithSecret, token: string | undefined, now: Date) {
  if (token !== undefined) {
    const endUser = await findVisitor(deps.db, channel.agentId, visitorTokenHash(token), now);
    if (endUser) return { endUser, token };
  }
  const fresh = newVisitorToken();
  const endUser = await insertVisitor(deps.db, {
    id: uuidv7(),
    organizationId: channel.organizationId,
    agentId: channel.agentId,
    tokenHash: visitorTokenHash(fresh),
    expiresAt: new Date(now.getTime() + VISITOR_TOKEN_DAYS * 86_400_000),
    now,
  });
  return { endUser, token: fresh };
}
