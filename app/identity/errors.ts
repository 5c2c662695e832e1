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

export const organizationNotFound = () =>
  new CodedError(404, 'ORGANIZATION.NOT_FOUND', {
    en: 'The organization does not exist.',
    es: 'La organización no existe.',
  });
