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
