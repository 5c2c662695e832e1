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

export const AI_APPROVAL_NOT_YOURS = errorCode(403, 'AI.APPROVAL_NOT_YOURS');
export const AI_APPROVAL_ALREADY_ANSWERED = errorCode(409, 'AI.APPROVAL_ALREADY_ANSWERED');

/** An end user answered an approval of a channel whose approvals are the staff's: it stays pending. */
export const approvalNotYours = () =>
  new CodedError(AI_APPROVAL_NOT_YOURS, {
    en: "This tool call waits for the business's staff to approve it; it stays pending until they answer.",
    es: 'Esta llamada a una herramienta espera la aprobación del personal de la empresa; sigue pendiente hasta que respondan.',
  });

/** A staff answer to an approval someone already answered (or that expired). */
export const approvalAlreadyAnswered = () =>
  new CodedError(AI_APPROVAL_ALREADY_ANSWERED, {
    en: 'This approval was already answered.',
    es: 'Esta aprobación ya fue respondida.',
  });

export const AI_APPROVAL_NOT_FOUND = errorCode(404, 'AI.APPROVAL_NOT_FOUND');

/** No approval of an end user's turn with this id in the caller's organization (another organization's looks the same). */
export const approvalNotFound = () => new CodedError(AI_APPROVAL_NOT_FOUND, { en: 'Approval not found', es: 'Aprobación no encontrada' });
