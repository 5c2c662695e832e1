import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as the routes that answer them declare them (`errors: [...]`, app/core/route.ts). */
export const AI_MODEL_NOT_AVAILABLE = errorCode(400, 'AI.MODEL_NOT_AVAILABLE');
export const AI_PROVIDER_NOT_CONFIGURED = errorCode(503, 'AI.PROVIDER_NOT_CONFIGURED');

/** On the platform key, a model the price list does not have (the platform never pays for an unpriced model). */
export const modelNotAvailable = (modelId: string) =>
  new CodedError(AI_MODEL_NOT_AVAILABLE, {
    en: `The model "${modelId}" is not available on this platform: choose a model from GET /api/ai/models, or add your organization's own provider key to use any model.`,
    es: `El modelo "${modelId}" no está disponible en esta plataforma: elige un modelo de GET /api/ai/models, o añade la clave de proveedor de tu organización para usar cualquier modelo.`,
  });

/** Production without `AI_GATEWAY_API_KEY`, for an organization without its own key. */
export const providerNotConfigured = () =>
  new CodedError(AI_PROVIDER_NOT_CONFIGURED, {
    en: 'No model provider is configured for this deployment',
    es: 'No hay ningún proveedor de modelos configurado en este despliegue',
  });
