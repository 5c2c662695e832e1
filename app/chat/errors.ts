import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const AI_PROVIDER_NOT_CONFIGURED = errorCode(503, 'AI.PROVIDER_NOT_CONFIGURED');
export const AI_CONVERSATION_NOT_FOUND = errorCode(404, 'AI.CONVERSATION_NOT_FOUND');

/** Production without `AI_GATEWAY_API_KEY`, for an organization without its own key. */
export const providerNotConfigured = () =>
  new CodedError(AI_PROVIDER_NOT_CONFIGURED, {
    en: 'No model provider is configured for this deployment',
    es: 'No hay ningún proveedor de modelos configurado en este despliegue',
  });

/** The caller's conversation with this id does not exist (another user's looks the same). */
export const conversationNotFound = () =>
  new CodedError(AI_CONVERSATION_NOT_FOUND, { en: 'Conversation not found', es: 'Conversación no encontrada' });

export const AI_MODEL_NOT_AVAILABLE = errorCode(400, 'AI.MODEL_NOT_AVAILABLE');
export const AI_CONVERSATION_FULL = errorCode(409, 'AI.CONVERSATION_FULL');

/** Most messages one conversation holds (user messages and answers together). */
export const MAX_CONVERSATION_MESSAGES = 1000;

/** On the platform key, a model the price list does not have (the platform never pays for an unpriced model). */
export const modelNotAvailable = (modelId: string) =>
  new CodedError(AI_MODEL_NOT_AVAILABLE, {
    en: `The model "${modelId}" is not available on this platform: choose a model from GET /api/ai/models, or add your organization's own provider key to use any model.`,
    es: `El modelo "${modelId}" no está disponible en esta plataforma: elige un modelo de GET /api/ai/models, o añade la clave de proveedor de tu organización para usar cualquier modelo.`,
  });

/** A new user message in a conversation that has no room for it and its answer. */
export const conversationFull = () =>
  new CodedError(AI_CONVERSATION_FULL, {
    en: `This conversation is full (at most ${MAX_CONVERSATION_MESSAGES} messages). Start a new conversation to go on.`,
    es: `Esta conversación está llena (como máximo ${MAX_CONVERSATION_MESSAGES} mensajes). Empieza una conversación nueva para continuar.`,
  });
