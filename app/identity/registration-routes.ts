import { isEmailTaken } from '../../sql/principals.ts';
import { principalIn, type PrincipalPath } from './principal-path.ts';
import { defineRoute } from '../core/route.ts';
import { changePassword } from './password-change.ts';
import { registerBusiness, registerClient, registerUser } from './registration.ts';
import {
  ChangePasswordBody,
  CheckEmailBody,
  CheckEmailResult,
  RegisterBusinessBody,
  RegisterClientBody,
  RegisterUserBody,
  Registered,
  VerifyEmailBody,
  VerifyEmailResult,
} from './schemas.ts';
import { verifyEmail } from './verification-codes.ts';
import { ORGANIZATION_NOT_FOUND } from '../organization/errors.ts';
import { PLANS_NO_ACTIVE_PUBLIC_PLAN, PLANS_PLAN_NOT_AVAILABLE } from '../plans/errors.ts';
import { SUBSCRIPTION_USER_LIMIT_REACHED } from '../subscriptions/errors.ts';
import {
  IDENTITY_BUSINESS_REGISTRATION_DISABLED,
  IDENTITY_CLIENT_REGISTRATION_DISABLED,
  IDENTITY_EMAIL_TAKEN,
  IDENTITY_WRONG_PASSWORD,
  VERIFICATION_CODE_ERRORS,
} from './errors.ts';

const verifyEmailRoute = (path: PrincipalPath<'verify-email'>, type = principalIn(path)) =>
  defineRoute({
    method: 'POST',
    path,
    rateLimit: { limit: 5, windowMs: '1m', identifierType: 'ip', source: 'interface' },
    summary: `Verify a ${type}'s email with the code sent to it`,
    description:
      'A code is valid for 15 minutes and for 5 wrong attempts. An unknown email, an already verified one ' +
      'and a wrong code all answer IDENTITY.VERIFICATION_CODE_INVALID. A new code is sent when the principal ' +
      'signs in with the right password while unverified.',
    tags: ['identity'],
    auth: 'public',
    schemas: { body: VerifyEmailBody },
    responses: {
      200: { description: 'Email verified', schema: VerifyEmailResult },
    },
    // A wrong code is _INVALID, the same answer for every account; only the right code can be _EXPIRED or _EXHAUSTED.
    errors: VERIFICATION_CODE_ERRORS,
    handler: async ({ deps, body }) => {
      await verifyEmail(deps, type, body.email, body.code);
      return { email: body.email.toLowerCase(), emailVerified: true as const };
    },
  });

const changePasswordRoute = (path: PrincipalPath<'change-password'>, type = principalIn(path)) =>
  defineRoute({
    method: 'POST',
    path,
    rateLimit: { limit: 3, windowMs: '15m', identifierType: 'userId', source: 'interface' },
    summary: `Change the signed-in ${type}'s password`,
    description: 'Revokes every refresh token of the principal; access tokens already issued expire on their own (15 minutes).',
    tags: ['identity'],
    auth: 'jwt',
    principal: type,
    schemas: { body: ChangePasswordBody },
    status: 204,
    responses: {
      204: { description: 'Password changed' },
    },
    errors: [IDENTITY_WRONG_PASSWORD],
    handler: ({ deps, auth, body }) => changePassword(deps, auth, body),
  });

const registeredResponses = {
  201: { description: 'Registered; the email is unverified and a code was sent to it', schema: Registered },
};

export const registrationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/identity/auth/user/check-email',
    rateLimit: { limit: 3, windowMs: '1m', identifierType: 'ip', source: 'interface' },
    summary: 'Is this email free for a new user?',
    description: 'Answers only availability: nothing about verification, sign-in methods or the organization.',
    tags: ['identity'],
    auth: 'public',
    schemas: { body: CheckEmailBody },
    responses: { 200: { description: 'Availability', schema: CheckEmailResult } },
    handler: async ({ deps, body }) => ({ available: !(await isEmailTaken(deps.db, 'user', body.email)) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/identity/auth/user/register',
    rateLimit: { limit: 5, windowMs: '15m', identifierType: 'ip', source: 'interface' },
    summary: 'Register a user with a new agency it owns',
    tags: ['identity'],
    auth: 'public',
    schemas: { body: RegisterUserBody },
    status: 201,
    idempotent: true,
    errors: [IDENTITY_EMAIL_TAKEN],
    responses: registeredResponses,
    handler: ({ deps, body }) => registerUser(deps, body),
  }),
  defineRoute({
    method: 'POST',
    path: '/identity/auth/user/register/business',
    // Creates a business and its owner, like register (5 per 15 minutes).
    rateLimit: { limit: 5, windowMs: '15m', identifierType: 'ip', source: 'project' },
    summary: 'Register a business under an agency, with its owner user',
    description:
      'Gates, fail-fast in this order: 403 IDENTITY.BUSINESS_REGISTRATION_DISABLED (the agency flag read), ' +
      '409 PLANS.NO_ACTIVE_PUBLIC_PLAN, 409 SUBSCRIPTION.USER_LIMIT_REACHED, 409 PLANS.PLAN_NOT_AVAILABLE (a planId that is ' +
      "not an active public plan of the agency; without one, the agency's oldest active public plan); then 409 IDENTITY.EMAIL_TAKEN.",
    tags: ['identity'],
    auth: 'public',
    schemas: { body: RegisterBusinessBody },
    status: 201,
    idempotent: true,
    responses: {
      201: { description: 'Business and owner created; the owner must verify the email', schema: Registered },
    },
    errors: [
      IDENTITY_BUSINESS_REGISTRATION_DISABLED,
      PLANS_NO_ACTIVE_PUBLIC_PLAN,
      SUBSCRIPTION_USER_LIMIT_REACHED,
      PLANS_PLAN_NOT_AVAILABLE,
      IDENTITY_EMAIL_TAKEN,
    ],
    handler: ({ deps, body }) => registerBusiness(deps, body),
  }),
  defineRoute({
    method: 'POST',
    path: '/identity/auth/client/register',
    rateLimit: { limit: 5, windowMs: '15m', identifierType: 'ip', source: 'interface' },
    summary: 'Register a client of an agency or business',
    tags: ['identity'],
    auth: 'public',
    schemas: { body: RegisterClientBody },
    status: 201,
    idempotent: true,
    responses: registeredResponses,
    errors: [ORGANIZATION_NOT_FOUND, IDENTITY_CLIENT_REGISTRATION_DISABLED, IDENTITY_EMAIL_TAKEN],
    handler: ({ deps, body }) => registerClient(deps, body),
  }),
  verifyEmailRoute('/identity/auth/user/verify-email'),
  verifyEmailRoute('/identity/auth/client/verify-email'),
  changePasswordRoute('/identity/auth/user/change-password'),
  changePasswordRoute('/identity/auth/client/change-password'),
];
