import { CodedError } from '../core/errors.ts';

export const approvalUnknownId = () =>
  new CodedError(400, 'TOOL_APPROVAL_UNKNOWN_ID', {
    en: 'The approval response does not match any pending approval.',
    es: 'La respuesta de aprobación no corresponde a ninguna aprobación pendiente.',
  });

/** `maxLength`: the longest reason, in characters (MAX_DENIAL_REASON_CHARS). */
export const approvalReasonTooLong = (maxLength: number) =>
  new CodedError(
    400,
    'TOOL_APPROVAL_REASON_TOO_LONG',
    {
      en: `The reason must be at most ${maxLength} characters.`,
      es: `El motivo debe tener como máximo ${maxLength} caracteres.`,
    },
    { maxLength },
  );
