import { CodedError } from '../core/errors.ts';

/** Production without `AI_GATEWAY_API_KEY`, for an organization without its own key. */
export const providerNotConfigured = () =>
  new CodedError(503, 'AI.PROVIDER_NOT_CONFIGURED', {
    en: 'No model provider is configured for this deployment',
    es: 'No hay ningún proveedor de modelos configurado en este despliegue',
  });

/** The caller's conversation with this id does not exist (another user's looks the same). */
export const conversationNotFound = () =>
  new CodedError(404, 'AI.CONVERSATION_NOT_FOUND', { en: 'Conversation not found', es: 'Conversación no encontrada' });
