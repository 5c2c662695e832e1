import { Type } from '@sinclair/typebox';
import { findUserProfile } from '../../sql/users.ts';
import { notFound } from '../core/errors.ts';
import { principalIn, type PrincipalPath } from './principal-path.ts';
import { defineRoute } from '../core/route.ts';
import { ErrorBody } from '../core/schemas.ts';
import { IDENTITY_EMAIL_NOT_VERIFIED } from './errors.ts';
import { LoginBody, LogoutBody, RefreshBody, TokenPairSchema } from './schemas.ts';
import { logIn, logOut, refresh } from './sessions.ts';

const loginRoute = (path: PrincipalPath<'login'>, type = principalIn(path)) =>
  defineRoute({
    method: 'POST',
    path,
    rateLimit: { limit: 10, windowMs: '15m', identifierType: 'ip', source: 'interface' },
    summary: `Sign in a ${type} with email and password`,
    tags: ['identity'],
    auth: 'public',
    schemas: { body: LoginBody },
    responses: {
      200: { description: 'Token pair', schema: TokenPairSchema },
      401: { description: 'Wrong email or password (one message for both)', schema: ErrorBody },
    },
    // IDENTITY.EMAIL_NOT_VERIFIED only after a correct password; a new verification code is sent.
    errors: [IDENTITY_EMAIL_NOT_VERIFIED],
    handler: ({ deps, body }) => logIn(deps, type, body.email, body.password),
  });

export const identityCoreRoutes = [
  loginRoute('/identity/auth/user/login'),
  loginRoute('/identity/auth/client/login'),
  defineRoute({
    method: 'POST',
    path: '/identity/auth/refresh',
    rateLimit: { limit: 10, windowMs: '1m', identifierType: 'ip', source: 'interface' },
    summary: 'Rotate a refresh token for a new token pair',
    description: 'A refresh token works once. Presenting a rotated token again revokes its whole family.',
    tags: ['identity'],
    auth: 'public',
    schemas: { body: RefreshBody },
    responses: {
      200: { description: 'New token pair', schema: TokenPairSchema },
      401: { description: 'Unknown, expired, rotated or revoked refresh token', schema: ErrorBody },
    },
    handler: ({ deps, body }) => refresh(deps, body.refreshToken),
  }),
  defineRoute({
    method: 'POST',
    path: '/identity/auth/logout',
    // Limited like refresh.
    rateLimit: { limit: 10, windowMs: '1m', identifierType: 'ip', source: 'project' },
    summary: "Sign out: revoke a refresh token's session, or every session of its account",
    description:
      'Revokes the session (the refresh-token family) of the presented token; with all: true, every refresh ' +
      'token of the account. Answers 204 also for an unknown, expired or already revoked token. Access tokens ' +
      'already issued are not revoked: they expire within 15 minutes.',
    tags: ['identity'],
    auth: 'public',
    schemas: { body: LogoutBody },
    status: 204,
    responses: { 204: { description: 'Signed out (or nothing to revoke)' } },
    handler: ({ deps, body }) => logOut(deps, body.refreshToken, body.all ?? false),
  }),
  defineRoute({
    method: 'GET',
    path: '/identity/me',
    summary: 'The signed-in principal',
    tags: ['identity'],
    auth: 'jwt',
    responses: {
      200: {
        description: 'Profile',
        schema: Type.Object({
          id: Type.String(),
          organizationId: Type.String(),
          type: Type.Union([Type.Literal('user'), Type.Literal('client')]),
          email: Type.String(),
          name: Type.String(),
          emailVerified: Type.Boolean(),
          createdAt: Type.String(),
        }),
      },
    },
    handler: async ({ deps, auth }) => (await findUserProfile(deps.db, auth.sub)) ?? Promise.reject(notFound('User')),
  }),
];
