import { Type } from '@sinclair/typebox';
import { EmailAddress, READABLE_LINE_PATTERN, StrictObject, Uuid } from '../core/schemas.ts';

export const Email = EmailAddress({ minLength: 3, maxLength: 254 });
/** Passwords longer than this are refused before hashing (a hashing cost bound). */
export const Password = Type.String({ minLength: 1, maxLength: 1024 });

export const LoginBody = StrictObject({ email: Email, password: Password });
export const RefreshBody = StrictObject({ refreshToken: Type.String({ minLength: 1, maxLength: 512 }) });

export const TokenPairSchema = Type.Object({
  accessToken: Type.String(),
  refreshToken: Type.String(),
  tokenType: Type.Literal('Bearer'),
  expiresIn: Type.Integer({ description: 'Seconds until the access token expires' }),
});

/** A password being set: at least 8 characters (NIST SP 800-63B §3.1.1.2), at most 1024. */
export const NewPassword = Type.String({ minLength: 8, maxLength: 1024 });
/** A person's name: one readable line (it reaches other people's screens and mail: an end user's name, a member's). */
export const Name = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: READABLE_LINE_PATTERN,
  errorMessage: 'must be one line of 1 to 200 characters, without control characters',
});

export const CheckEmailBody = StrictObject({ email: Email });
export const CheckEmailResult = Type.Object({
  available: Type.Boolean({ description: 'false when a user with this email exists (verified or not)' }),
});

export const RegisterUserBody = StrictObject({
  email: Email,
  password: NewPassword,
  name: Name,
  organizationName: Type.String({ minLength: 1, maxLength: 200, description: 'Name of the new agency' }),
});
export const RegisterClientBody = StrictObject({
  email: Email,
  password: NewPassword,
  name: Name,
  organizationId: Uuid({ description: 'The agency or business the client is a customer of' }),
});
export const RegisterBusinessBody = StrictObject({
  email: Email,
  password: NewPassword,
  name: Name,
  businessName: Type.String({ minLength: 1, maxLength: 200 }),
  agencyId: Uuid(),
  planId: Type.Optional(Uuid({ description: "an active public plan of the agency; absent: the agency's oldest one" })),
});
export const Registered = Type.Object({
  userId: Type.String(),
  organizationId: Type.String(),
  email: Type.String(),
});

export const VerifyEmailBody = StrictObject({
  email: Email,
  code: Type.String({ pattern: '^[0-9]{6}$', errorMessage: 'must be a 6-digit code' }),
});
export const VerifyEmailResult = Type.Object({ email: Type.String(), emailVerified: Type.Literal(true) });

export const LogoutBody = StrictObject({
  refreshToken: Type.String({ minLength: 1, maxLength: 512 }),
  all: Type.Optional(Type.Boolean({ description: 'Also end every other session of the account', default: false })),
});

export const ForgotPasswordBody = StrictObject({ email: Email });
export const ResetPasswordBody = StrictObject({
  email: Email,
  code: Type.String({ pattern: '^[0-9]{6}$', errorMessage: 'must be a 6-digit code' }),
  newPassword: NewPassword,
});

export const ChangePasswordBody = StrictObject({ currentPassword: Password, newPassword: NewPassword });

export const GoogleAuthorizeQuery = StrictObject({
  organizationId: Type.Optional(Uuid({ description: 'Clients only: the organization a new client joins' })),
});
export const GoogleAuthorization = Type.Object({
  authorizationUrl: Type.String(),
  state: Type.String(),
  expiresAt: Type.String(),
});
/** Google adds parameters of its own (scope, authuser, prompt, hd), so unknown ones are allowed. */
export const GoogleCallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    state: Type.String({ minLength: 1, maxLength: 2048 }),
    error: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: true },
);

export const GoogleHandoffBody = StrictObject({
  code: Type.String({ minLength: 1, maxLength: 128, description: 'The handoff parameter of the front-end redirect' }),
  state: Type.String({ minLength: 1, maxLength: 2048, description: 'The state the authorize route answered' }),
});
