import { principalIn, type PrincipalPath } from './principal-path.ts';
import { defineRoute } from '../core/route.ts';
import { isBrowserNavigation, landGoogleSignIn } from './google/browser-landing.ts';
import { redeemHandoff } from './google/handoff.ts';
import { finishGoogleSignIn, startGoogleSignIn } from './google/sign-in.ts';
import { GoogleAuthorization, GoogleAuthorizeQuery, GoogleCallbackQuery, GoogleHandoffBody, TokenPairSchema } from './schemas.ts';
import { ValidationError } from '../core/errors.ts';
import { ORGANIZATION_NOT_FOUND } from '../organization/errors.ts';
import {
  IDENTITY_CLIENT_REGISTRATION_DISABLED,
  IDENTITY_EMAIL_TAKEN,
  IDENTITY_GOOGLE_ACCOUNT_CONFLICT,
  IDENTITY_GOOGLE_EMAIL_NOT_VERIFIED,
  IDENTITY_GOOGLE_HANDOFF_INVALID,
  IDENTITY_GOOGLE_SIGN_IN_FAILED,
  IDENTITY_GOOGLE_STATE_INVALID,
  IDENTITY_GOOGLE_UNAVAILABLE,
} from './errors.ts';

/** Mounted only when GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are set; elsewhere the paths answer 404. */
const googleConfigured = (deps: { config: { google: unknown } }) => deps.config.google !== undefined;

const authorizeRoute = (path: PrincipalPath<'google/authorize'>, type = principalIn(path)) =>
  defineRoute({
    method: 'GET',
    path,
    // The start of the flow whose callback the interface limits to 10 per minute.
    rateLimit: { limit: 10, windowMs: '1m', identifierType: 'ip', source: 'project' },
    summary: `Start a Google sign-in for a ${type}`,
    description:
      'Answers the Google authorization URL (authorization-code flow with PKCE S256 and a signed state valid ' +
      'for 10 minutes). Send the browser there; Google redirects it to the callback.' +
      (type === 'client' ? ' organizationId is required: a new client joins that organization.' : ''),
    tags: ['identity'],
    auth: 'public',
    schemas: { query: GoogleAuthorizeQuery },
    enabled: googleConfigured,
    responses: { 200: { description: 'Where to send the browser', schema: GoogleAuthorization } },
    handler: ({ deps, query }) => {
      if (type === 'client' && !query.organizationId) {
        throw new ValidationError([{ path: ['query', 'organizationId'], message: 'Required' }]);
      }
      return startGoogleSignIn(deps, deps.config.google!, type, query.organizationId);
    },
  });

const callbackRoute = (path: PrincipalPath<'google/callback'>, type = principalIn(path)) =>
  defineRoute({
    method: 'GET',
    path,
    rateLimit: { limit: 10, windowMs: '1m', identifierType: 'ip', source: 'interface' },
    readOnly: false,
    summary: `Finish a Google sign-in for a ${type}`,
    description:
      'Exchanges the authorization code, then signs in the principal linked to the Google account, links the ' +
      'one with the same verified email, or creates one. A browser (Accept: text/html) is answered 303 to ' +
      'FRONTEND_URL with googleSignIn=success&type&handoff (trade it at POST /identity/auth/google/handoff) or ' +
      'googleSignIn=error&type&errorCode; other callers get the token pair.',
    tags: ['identity'],
    auth: 'public',
    schemas: { query: GoogleCallbackQuery },
    enabled: googleConfigured,
    responses: {
      200: { description: 'Token pair', schema: TokenPairSchema },
      303: { description: 'Browser: redirect to FRONTEND_URL with googleSignIn=success&handoff or googleSignIn=error&errorCode' },
    },
    errors: [
      IDENTITY_GOOGLE_STATE_INVALID,
      IDENTITY_GOOGLE_SIGN_IN_FAILED,
      IDENTITY_GOOGLE_EMAIL_NOT_VERIFIED,
      ORGANIZATION_NOT_FOUND,
      IDENTITY_CLIENT_REGISTRATION_DISABLED,
      IDENTITY_GOOGLE_ACCOUNT_CONFLICT,
      IDENTITY_EMAIL_TAKEN,
      IDENTITY_GOOGLE_UNAVAILABLE,
    ],
    handler: ({ deps, ctx, query }) =>
      isBrowserNavigation(ctx)
        ? landGoogleSignIn(deps, deps.config.google!, type, query)
        : finishGoogleSignIn(deps, deps.config.google!, type, query),
  });

const handoffRoute = defineRoute({
  method: 'POST',
  path: '/identity/auth/google/handoff',
  // Limited like refresh.
  rateLimit: { limit: 10, windowMs: '1m', identifierType: 'ip', source: 'project' },
  summary: 'Trade the one-time code of a browser Google sign-in for a token pair',
  description:
    'code is the handoff parameter the callback put on the FRONTEND_URL redirect; state is the one the ' +
    'authorize route answered to the front-end that started the sign-in. Single use, within 60 seconds.',
  tags: ['identity'],
  auth: 'public',
  schemas: { body: GoogleHandoffBody },
  enabled: googleConfigured,
  responses: {
    200: { description: 'Token pair', schema: TokenPairSchema },
  },
  // IDENTITY.GOOGLE_HANDOFF_INVALID: unknown, used, expired, or another state.
  errors: [IDENTITY_GOOGLE_HANDOFF_INVALID],
  handler: ({ deps, body }) => redeemHandoff(deps, body.code, body.state),
});

export const googleRoutes = [
  authorizeRoute('/identity/auth/user/google/authorize'),
  callbackRoute('/identity/auth/user/google/callback'),
  authorizeRoute('/identity/auth/client/google/authorize'),
  callbackRoute('/identity/auth/client/google/callback'),
  handoffRoute,
];
