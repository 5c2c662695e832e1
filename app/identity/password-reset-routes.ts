import { Type } from '@sinclair/typebox';
import { principalIn, type PrincipalPath } from './principal-path.ts';
import { defineRoute } from '../core/route.ts';
import { VERIFICATION_CODE_ERRORS } from './errors.ts';
import { requestPasswordReset, resetPassword } from './password-reset.ts';
import { ForgotPasswordBody, ResetPasswordBody } from './schemas.ts';

const forgotPasswordRoute = (path: PrincipalPath<'forgot-password'>, type = principalIn(path)) =>
  defineRoute({
    method: 'POST',
    path,
    // Limited like check-email.
    rateLimit: { limit: 3, windowMs: '1m', identifierType: 'ip', source: 'project' },
    summary: `Email a password-reset code to a ${type}`,
    description:
      'Answers 202 {} whether or not an account has this email, so the route reveals nothing. When one has, ' +
      'a 6-digit code valid for 15 minutes and 5 wrong attempts is emailed (it supersedes an earlier one).',
    tags: ['identity'],
    auth: 'public',
    schemas: { body: ForgotPasswordBody },
    status: 202,
    responses: { 202: { description: 'Accepted (the same answer for every email)', schema: Type.Object({}) } },
    handler: async ({ deps, body }) => {
      await requestPasswordReset(deps, type, body.email);
      return {};
    },
  });

const resetPasswordRoute = (path: PrincipalPath<'reset-password'>, type = principalIn(path)) =>
  defineRoute({
    method: 'POST',
    path,
    // Limited like verify-email.
    rateLimit: { limit: 5, windowMs: '1m', identifierType: 'ip', source: 'project' },
    summary: `Set a new password for a ${type} with an emailed reset code`,
    description:
      'The code works once. Every refresh token of the account is revoked (access tokens expire within 15 ' +
      'minutes), and the email counts as verified. An unknown email answers like a wrong code.',
    tags: ['identity'],
    auth: 'public',
    schemas: { body: ResetPasswordBody },
    status: 204,
    responses: {
      204: { description: 'Password replaced' },
    },
    // A wrong code is _INVALID, the same answer for every account; only the right code can be _EXPIRED or _EXHAUSTED.
    errors: VERIFICATION_CODE_ERRORS,
    handler: ({ deps, body }) => resetPassword(deps, type, body),
  });

export const passwordResetRoutes = [
  forgotPasswordRoute('/identity/auth/user/forgot-password'),
  resetPasswordRoute('/identity/auth/user/reset-password'),
  forgotPasswordRoute('/identity/auth/client/forgot-password'),
  resetPasswordRoute('/identity/auth/client/reset-password'),
];
