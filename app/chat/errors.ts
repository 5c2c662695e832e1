import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const AI_CONVERSATION_NOT_FOUND = errorCode(404, 'AI.CONVERSATION_NOT_FOUND');

/** The caller's conversation with this id does not exist (another user's looks the same). */
export const conversationNotFound = () =>
  new CodedError(AI_CONVERSATION_NOT_FOUND, { en: 'Conversation not found', es: 'Conversación no encontrada' });

export const AI_CONVERSATION_FULL = errorCode(409, 'AI.CONVERSATION_FULL');

/** Most messages one conversation holds (user messages and answers together). */
export const MAX_CONVERSATION_MESSAGES = 1000;

/** A new user message in a conversation that has no room for it and its answer. */
export const conversationFull = () =>
  new CodedError(AI_CONVERSATION_FULL, {
    en: `This conversation is full (at most ${MAX_CONVERSATION_MESSAGES} messages). Start a new conversation to go on.`,
    es: `Esta conversación está llena (como máximo ${MAX_CONVERSATION_MESSAGES} mensajes). Empieza una conversación nueva para continuar.`,
  });

export const AI_TURN_IN_PROGRESS = errorCode(409, 'AI.TURN_IN_PROGRESS');
export const AI_MESSAGE_ALREADY_SENT = errorCode(409, 'AI.MESSAGE_ALREADY_SENT');
export const AI_STREAM_UNAVAILABLE = errorCode(503, 'AI.STREAM_UNAVAILABLE');

/** A new message while a turn of the conversation runs (one turn per conversation). */
export const turnInProgress = () =>
  new CodedError(AI_TURN_IN_PROGRESS, {
    en: 'An answer is still being written in this conversation; resume it, stop it, or wait for it to end',
    es: 'Todavía se está escribiendo una respuesta en esta conversación; reanúdala, detenla o espera a que termine',
  });

/** A user message id that already started a turn, which has ended (its answer is in the conversation). */
export const messageAlreadySent = () =>
  new CodedError(AI_MESSAGE_ALREADY_SENT, {
    en: 'This message was already sent and answered; read the conversation for the answer',
    es: 'Este mensaje ya se envió y se respondió; lee la conversación para ver la respuesta',
  });

/** A turn runs on another instance but its stream cannot be reached (Redis away); retry shortly. */
export const streamUnavailable = () =>
  new CodedError(
    AI_STREAM_UNAVAILABLE,
    {
      en: 'The answer in progress cannot be followed right now; it will be saved. Try again in 1 second.',
      es: 'La respuesta en curso no se puede seguir ahora; se guardará. Inténtalo de nuevo en 1 segundo.',
    },
    { retryAfterSeconds: 1 },
  );
