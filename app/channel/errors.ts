import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const AI_CHANNEL_NOT_FOUND = errorCode(404, 'AI.CHANNEL_NOT_FOUND');
export const AI_ORIGIN_NOT_ALLOWED = errorCode(403, 'AI.ORIGIN_NOT_ALLOWED');
export const AI_END_USER_NOT_VERIFIED = errorCode(401, 'AI.END_USER_NOT_VERIFIED');
export const AI_END_USER_QUOTA_EXCEEDED = errorCode(429, 'AI.END_USER_QUOTA_EXCEEDED');

/** No enabled channel of an agent in use behind this key or session (disabled, archived and unknown look the same). */
export const channelNotFound = () =>
  new CodedError(AI_CHANNEL_NOT_FOUND, {
    en: 'This chat is not available.',
    es: 'Este chat no está disponible.',
  });

/** A page of an origin the channel does not allow, or a server without an Origin asking for an unverified session. */
export const originNotAllowed = () =>
  new CodedError(AI_ORIGIN_NOT_ALLOWED, {
    en: 'This chat cannot be used from this website.',
    es: 'Este chat no se puede usar desde este sitio web.',
  });

/** A `user` whose hash is wrong (or a channel without a secret, or a verified channel without a user). */
export const endUserNotVerified = () =>
  new CodedError(AI_END_USER_NOT_VERIFIED, {
    en: 'The user could not be verified.',
    es: 'No se pudo verificar al usuario.',
  });

/** The end user's new messages of the UTC day are used up; `retryAfterSeconds` until the next UTC midnight. */
export const endUserQuotaExceeded = (limit: number, retryAfterSeconds: number) =>
  new CodedError(
    AI_END_USER_QUOTA_EXCEEDED,
    {
      en: `You have sent the ${limit} messages allowed today. Try again tomorrow.`,
      es: `Has enviado los ${limit} mensajes permitidos hoy. Inténtalo de nuevo mañana.`,
    },
    { limit, retryAfterSeconds },
  );

/** The business's end-user messages of the UTC month (its plan's `maxEndUserMessagesPerMonth`) are used up. */
export const endUserMonthlyQuotaExceeded = (limit: number, retryAfterSeconds: number) =>
  new CodedError(
    AI_END_USER_QUOTA_EXCEEDED,
    {
      en: 'This assistant has answered all the messages it can this month. Try again next month.',
      es: 'Este asistente ha respondido todos los mensajes que puede este mes. Inténtalo de nuevo el mes que viene.',
    },
    { limit, retryAfterSeconds },
  );
