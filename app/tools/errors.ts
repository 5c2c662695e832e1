import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const TOOL_APPROVAL_UNKNOWN_ID = errorCode(400, 'TOOL_APPROVAL_UNKNOWN_ID');
export const TOOL_APPROVAL_REASON_TOO_LONG = errorCode(400, 'TOOL_APPROVAL_REASON_TOO_LONG');

export const approvalUnknownId = () =>
  new CodedError(TOOL_APPROVAL_UNKNOWN_ID, {
    en: 'The approval response does not match any pending approval.',
    es: 'La respuesta de aprobación no corresponde a ninguna aprobación pendiente.',
  });

/** `maxLength`: the longest reason, in characters (MAX_DENIAL_REASON_CHARS). */
export const approvalReasonTooLong = (maxLength: number) =>
  new CodedError(
    TOOL_APPROVAL_REASON_TOO_LONG,
    {
      en: `The reason must be at most ${maxLength} characters.`,
      es: `El motivo debe tener como máximo ${maxLength} caracteres.`,
    },
    { maxLength },
  );
