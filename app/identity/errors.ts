import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const IDENTITY_EMAIL_TAKEN = errorCode(409, 'IDENTITY.EMAIL_TAKEN');
export const IDENTITY_EMAIL_NOT_VERIFIED = errorCode(403, 'IDENTITY.EMAIL_NOT_VERIFIED');
export const IDENTITY_WRONG_PASSWORD = errorCode(403, 'IDENTITY.WRONG_PASSWORD');
export const IDENTITY_BUSINESS_REGISTRATION_DISABLED = errorCode(403, 'IDENTITY.BUSINESS_REGISTRATION_DISABLED');
export const IDENTITY_CLIENT_REGISTRATION_DISABLED = errorCode(403, 'IDENTITY.CLIENT_REGISTRATION_DISABLED');
export const IDENTITY_GOOGLE_STATE_INVALID = errorCode(401, 'IDENTITY.GOOGLE_STATE_INVALID');
export const IDENTITY_GOOGLE_EMAIL_NOT_VERIFIED = errorCode(403, 'IDENTITY.GOOGLE_EMAIL_NOT_VERIFIED');
export const IDENTITY_GOOGLE_ACCOUNT_CONFLICT = errorCode(409, 'IDENTITY.GOOGLE_ACCOUNT_CONFLICT');
export const IDENTITY_GOOGLE_SIGN_IN_FAILED = errorCode(401, 'IDENTITY.GOOGLE_SIGN_IN_FAILED');
export const IDENTITY_GOOGLE_UNAVAILABLE = errorCode(502, 'IDENTITY.GOOGLE_UNAVAILABLE');
export const IDENTITY_GOOGLE_HANDOFF_INVALID = errorCode(401, 'IDENTITY.GOOGLE_HANDOFF_INVALID');
export const IDENTITY_VERIFICATION_CODE_INVALID = errorCode(400, 'IDENTITY.VERIFICATION_CODE_INVALID');
export const IDENTITY_VERIFICATION_CODE_EXPIRED = errorCode(400, 'IDENTITY.VERIFICATION_CODE_EXPIRED');
export const IDENTITY_VERIFICATION_CODE_EXHAUSTED = errorCode(400, 'IDENTITY.VERIFICATION_CODE_EXHAUSTED');
export const IDENTITY_INVITATION_INVALID = errorCode(400, 'IDENTITY.INVITATION_INVALID');
/** What a route that checks an emailed code can answer (verify-email, reset-password). */
export const VERIFICATION_CODE_ERRORS = [
  IDENTITY_VERIFICATION_CODE_INVALID,
  IDENTITY_VERIFICATION_CODE_EXPIRED,
  IDENTITY_VERIFICATION_CODE_EXHAUSTED,
];

export const emailTaken = () =>
  new CodedError(IDENTITY_EMAIL_TAKEN, {
    en: 'This email is already registered.',
    es: 'Este correo electrónico ya está registrado.',
  });

export const emailNotVerified = () =>
  new CodedError(IDENTITY_EMAIL_NOT_VERIFIED, {
    en: 'Verify your email before signing in. A new verification code has been sent.',
    es: 'Verifica tu correo electrónico antes de iniciar sesión. Se ha enviado un nuevo código de verificación.',
  });

export const wrongCurrentPassword = () =>
  new CodedError(IDENTITY_WRONG_PASSWORD, {
    en: 'The current password is not correct.',
    es: 'La contraseña actual no es correcta.',
  });

export const businessRegistrationDisabled = () =>
  new CodedError(IDENTITY_BUSINESS_REGISTRATION_DISABLED, {
    en: 'This agency does not accept business registrations.',
    es: 'Esta agencia no admite registros de empresas.',
  });

/** An organization whose `allowClientRegistration` is off: its clients are added by its staff, not by themselves. */
export const clientRegistrationDisabled = () =>
  new CodedError(IDENTITY_CLIENT_REGISTRATION_DISABLED, {
    en: 'This organization does not accept client registrations.',
    es: 'Esta organización no admite registros de clientes.',
  });

export const googleStateInvalid = () =>
  new CodedError(IDENTITY_GOOGLE_STATE_INVALID, {
    en: 'The sign-in link is invalid or has expired. Start again.',
    es: 'El enlace de inicio de sesión no es válido o ha caducado. Vuelve a empezar.',
  });

export const unverifiedGoogleEmail = () =>
  new CodedError(IDENTITY_GOOGLE_EMAIL_NOT_VERIFIED, {
    en: 'Google has not verified this email address.',
    es: 'Google no ha verificado esta dirección de correo electrónico.',
  });

export const googleAccountConflict = () =>
  new CodedError(IDENTITY_GOOGLE_ACCOUNT_CONFLICT, {
    en: 'This email is linked to a different Google account.',
    es: 'Este correo electrónico está vinculado a otra cuenta de Google.',
  });

export const googleSignInFailed = () =>
  new CodedError(IDENTITY_GOOGLE_SIGN_IN_FAILED, {
    en: 'Google sign-in failed. Please try again.',
    es: 'No se pudo iniciar sesión con Google. Inténtalo de nuevo.',
  });

export const googleUnavailable = () =>
  new CodedError(IDENTITY_GOOGLE_UNAVAILABLE, {
    en: 'Google sign-in is unavailable right now.',
    es: 'El inicio de sesión con Google no está disponible en este momento.',
  });

export const googleHandoffInvalid = () =>
  new CodedError(IDENTITY_GOOGLE_HANDOFF_INVALID, {
    en: 'The sign-in could not be completed. Start again.',
    es: 'No se pudo completar el inicio de sesión. Vuelve a empezar.',
  });

/**
 * The one answer to a wrong code, whatever the account: no metadata (an attempt count would
 * exist only for real accounts with a live code, and tell them from unknown emails).
 */
export const invalidCode = () =>
  new CodedError(IDENTITY_VERIFICATION_CODE_INVALID, {
    en: 'The verification code is not valid.',
    es: 'El código de verificación no es válido.',
  });

export const expiredCode = () =>
  new CodedError(IDENTITY_VERIFICATION_CODE_EXPIRED, {
    en: 'The verification code has expired. Sign in to receive a new one.',
    es: 'El código de verificación ha caducado. Inicia sesión para recibir uno nuevo.',
  });

export const exhaustedCode = () =>
  new CodedError(IDENTITY_VERIFICATION_CODE_EXHAUSTED, {
    en: 'Too many wrong attempts for this code. Sign in to receive a new one.',
    es: 'Demasiados intentos fallidos con este código. Inicia sesión para recibir uno nuevo.',
  });

/** One answer for a wrong, used, superseded or expired invitation code, or one for another address or principal type. */
export const invitationInvalid = () =>
  new CodedError(IDENTITY_INVITATION_INVALID, {
    en: 'This invitation is not valid. Ask for a new one.',
    es: 'Esta invitación no es válida. Pide una nueva.',
  });
