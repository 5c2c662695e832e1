import { Type } from '@sinclair/typebox';
import { StrictObject } from '../core/schemas.ts';

export const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 });
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
