import { takeLandedAuthorization } from '../../sql/mcp-oauth-states.ts';
import type { AppDeps } from '../core/deps.ts';
import type { AccessClaims } from '../core/route.ts';
import { openJson } from '../crypto/credentials.ts';
import { redeemAuthorizationResponse, type AuthorizationResponse, type CompletedAuthorization } from './callback.ts';
import { handoffInvalid } from './errors.ts';
import { hashState } from './state-token.ts';

/** A hand-off must be completed within two minutes of the landing (the front-end does it on load). */
export const HANDOFF_LIFETIME_MS = 2 * 60 * 1000;

/** The sealing context of a landed authorization response: bound to its flow. */
export const landingContext = (stateHash: Buffer) => `mcp-oauth-landing:${stateHash.toString('hex')}`;

/**
 * The front-end that started a flow completes the landing (ADR 0082): with its own access
 * token, the `handoff` of the redirect and the `browserKey` initiate answered it. Only the
 * initiating user's flow with that key is taken (single use); anything else (unknown, used,
 * expired, another user's, a key of another browser) is 400 `MCP_OAUTH.HANDOFF_INVALID` and
 * consumes nothing but an expired hand-off. Then the response is redeemed as at the callback.
 */
export async function completeHandoff(
  deps: AppDeps,
  auth: AccessClaims,
  body: { handoff: string; browserKey: string },
): Promise<CompletedAuthorization> {
  const now = deps.clock();
  const taken = await takeLandedAuthorization(deps.db, {
    handoffHash: hashState(body.handoff),
    userId: auth.sub,
    browserKeyHash: hashState(body.browserKey),
    now,
  });
  if (!taken || taken.expired || taken.agencyId !== auth.agencyId) throw handoffInvalid();
  const { stateHash, landingKeyId, landingSealed, ...pending } = taken;
  const response = openJson<AuthorizationResponse>(
    deps.config.credentialsKeyring,
    { keyId: landingKeyId, ciphertext: landingSealed },
    landingContext(stateHash),
  );
  return redeemAuthorizationResponse(deps, pending, stateHash, response, now);
}
