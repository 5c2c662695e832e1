import { uuidv7 } from 'uuidv7';
import { insertOrganization } from '../../../sql/organizations.ts';
import { findGoogleCandidates, findRoleIdByName, grantRole, insertPrincipal, linkGoogleAccount } from '../../../sql/principals.ts';
import type { GoogleOAuthConfig } from '../../config.ts';
import type { AppDeps } from '../../core/deps.ts';
import { ValidationError } from '../../core/errors.ts';
import type { PrincipalType } from '../../core/route.ts';
import { emailTaken, googleAccountConflict, googleSignInFailed, googleStateInvalid, unverifiedGoogleEmail } from '../errors.ts';
import { AGENCY_OWNER_ROLE, openForClients } from '../registration.ts';
import { issueTokens, type Subject } from '../sessions.ts';
import type { TokenPair } from '../tokens.ts';
import { authorizationUrl, exchangeCodeForProfile, type GoogleProfile } from './provider.ts';
import { codeChallengeFor, codeVerifierFor, signState, STATE_TTL_SECONDS, verifyState } from './state.ts';

export const redirectUriFor = (deps: AppDeps, type: PrincipalType) =>
  `${deps.config.publicBaseUrl}/api/identity/auth/${type}/google/callback`;

/** Starts a sign-in: the URL to send the browser to, with a signed state and a PKCE challenge. */
export function startGoogleSignIn(deps: AppDeps, google: GoogleOAuthConfig, type: PrincipalType, organizationId?: string) {
  const now = deps.clock();
  const state = signState(deps.config.jwtSecret, organizationId ? { type, organizationId } : { type }, now);
  return {
    authorizationUrl: authorizationUrl(google, {
      redirectUri: redirectUriFor(deps, type),
      state,
      codeChallenge: codeChallengeFor(codeVerifierFor(deps.config.jwtSecret, state)),
    }),
    state,
    expiresAt: new Date(now.getTime() + STATE_TTL_SECONDS * 1000).toJSON(),
  };
}

/**
 * Finishes a sign-in at the callback: checks the state, exchanges the code, then signs in the
 * principal linked to the Google account, links the one with the same (Google-verified) email,
 * or creates one: a `user` with a new agency it owns, a `client` in the organization named
 * when the sign-in started (when it takes client registrations: `openForClients`).
 */
export async function finishGoogleSignIn<R = TokenPair>(
  deps: AppDeps,
  google: GoogleOAuthConfig,
  type: PrincipalType,
  query: { code?: string | undefined; state: string; error?: string | undefined },
  /** What the signed-in principal gets, inside the transaction. Default: a new token pair. */
  complete: (tx: Tx, subject: Subject) => Promise<R> = (tx, subject) => issueTokens(deps, tx, subject, uuidv7()) as Promise<R>,
): Promise<R> {
  const payload = verifyState(deps.config.jwtSecret, query.state, type, deps.clock());
  if (!payload) throw googleStateInvalid();
  if (query.error) throw googleSignInFailed();
  if (!query.code) throw new ValidationError([{ path: ['query', 'code'], message: 'Required' }]);
  const profile = await exchangeCodeForProfile(google, {
    code: query.code,
    redirectUri: redirectUriFor(deps, type),
    codeVerifier: codeVerifierFor(deps.config.jwtSecret, query.state),
  });
  if (!profile.emailVerified) throw unverifiedGoogleEmail();
  return deps.db.transaction(async (tx) => {
    const subject = await principalFor(deps, tx, type, profile, payload.organizationId);
    return complete(tx, subject);
  });
}

type Tx = Parameters<Parameters<AppDeps['db']['transaction']>[0]>[0];

async function principalFor(deps: AppDeps, tx: Tx, type: PrincipalType, profile: GoogleProfile, organizationId?: string) {
  const [match] = await findGoogleCandidates(tx, type, profile.subject, profile.email);
  if (match) {
    if (match.googleSubject === profile.subject) return match;
    if (match.googleSubject !== null) throw googleAccountConflict();
    await linkGoogleAccount(tx, match.id, profile.subject, !match.emailVerified);
    return match;
  }
  let ownerOf: string;
  if (type === 'client') {
    ownerOf = (await openForClients(tx, organizationId)).id;
  } else {
    ownerOf = uuidv7();
    const agencyName = (profile.name || profile.email).slice(0, 200);
    await insertOrganization(tx, { id: ownerOf, name: agencyName, type: 'AGENCY', parentId: null });
  }
  const id = uuidv7();
  const inserted = await insertPrincipal(tx, {
    id,
    organizationId: ownerOf,
    type,
    email: profile.email,
    name: profile.name,
    passwordHash: null,
    googleSubject: profile.subject,
    emailVerified: true,
  });
  if (!inserted) throw emailTaken();
  if (type === 'user') {
    const roleId = await findRoleIdByName(tx, AGENCY_OWNER_ROLE);
    if (roleId) await grantRole(tx, id, roleId);
  }
  deps.logger.info({ userId: id, type }, 'principal created from a Google sign-in');
  return { id, organizationId: ownerOf, type };
}
