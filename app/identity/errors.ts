import { CodedError } from '../core/errors.ts';

export const emailTaken = () =>
  new CodedError(409, 'IDENTITY.EMAIL_TAKEN', {
    en: 'This email is already registered.',
    es: 'Este correo electrónico ya está registrado.',
  });

export const emailNotVerified = () =>
  new CodedError(403, 'IDENTITY.EMAIL_NOT_VERIFIED', {
    en: 'Verify your email before signing in. A new verification code has been sent.',
    es: 'Verifica tu correo electrónico antes de iniciar sesión. Se ha enviado un nuevo código de verificación.',
  });

export const wrongCurrentPassword = () =>
  new CodedError(403, 'IDENTITY.WRONG_PASSWORD', {
    en: 'The current password is not correct.',
    es: 'La contraseña actual no es correcta.',
  });

export const businessRegistrationDisabled = () =>
  new CodedError(403, 'IDENTITY.BUSINESS_REGISTRATION_DISABLED', {
    en: 'This agency does not accept business registrations.',
    es: 'Esta agencia no admite registros de empresas.',
  });

export const googleStateInvalid = () =>
  new CodedError(401, 'IDENTITY.GOOGLE_STATE_INVALID', {
    en: 'The sign-in link is invalid or has expired. Start again.',
    es: 'El enlace de inicio de sesión no es válido o ha caducado. Vuelve a empezar.',
  });

export const unverifiedGoogleEmail = () =>
  new CodedError(403, 'IDENTITY.GOOGLE_EMAIL_NOT_VERIFIED', {
    en: 'Google has not verified this email address.',
    es: 'Google no ha verificado esta dirección de correo electrónico.',
  });

export const googleAccountConflict = () =>
  new CodedError(409, 'IDENTITY.GOOGLE_ACCOUNT_CONFLICT', {
    en: 'This email is linked to a different Google account.',
    es: 'Este correo electrónico está vinculado a otra cuenta de Google.',
  });

export const googleSignInFailed = () =>
  new CodedError(401, 'IDENTITY.GOOGLE_SIGN_IN_FAILED', {
    en: 'Google sign-in failed. Please try again.',
    es: 'No se pudo iniciar sesión con Google. Inténtalo de nuevo.',
  });

export const googleUnavailable = () =>
  new CodedError(502, 'IDENTITY.GOOGLE_UNAVAILABLE', {
    en: 'Google sign-in is unavailable right now.',
    es: 'El inicio de sesión con Google no está disponible en este momento.',
  });

export const googleHandoffInvalid = () =>
  new CodedError(401, 'IDENTITY.GOOGLE_HANDOFF_INVALID', {
    en: 'The sign-in could not be completed. Start again.',
    es: 'No se pudo completar el inicio de sesión. Vuelve a empezar.',
  });

/**
 * The one answer to a wrong code, whatever the account: no metadata (an attempt count would
 * exist only for real accounts with a live code, and tell them from unknown emails).
 */
export const invalidCode = () =>
  new CodedError(400, 'IDENTITY.VERIFICATION_CODE_INVALID', {
    en: 'The verification code is not valid.',
    es: 'El código de verificación no es válido.',
  });

export const expiredCode = () =>
  new CodedError(400, 'IDENTITY.VERIFICATION_CODE_EXPIRED', {
    en: 'The verification code has expired. Sign in to receive a new one.',
    es: 'El código de verificación ha caducado. Inicia sesión para recibir uno nuevo.',
  });

export const exhaustedCode = () =>
  new CodedError(400, 'IDENTITY.VERIFICATION_CODE_EXHAUSTED', {
    en: 'Too many wrong attempts for this code. Sign in to receive a new one.',
    es: 'Demasiados intentos fallidos con este código. Inicia sesión para recibir uno nuevo.',
  });
