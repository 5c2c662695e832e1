import { isModelPriced } from '../../sql/model-pricing.ts';
import { findProviderKey } from '../../sql/provider-keys.ts';
import type { AppDeps } from '../core/deps.ts';
import { modelNotAvailable } from '../metering/errors.ts';

/**
 * Refuses a moderation model the platform would pay for without a price (400
 * `AI.MODEL_NOT_AVAILABLE`), where it is set: an organization with its own provider key (BYOK) may
 * name any model; on the platform key it must be in the price list. `undefined` and null set none.
 */
export async function moderationModelAllowed(deps: Pick<AppDeps, 'db'>, organizationId: string, modelId: string | null | undefined) {
  if (modelId === undefined || modelId === null) return;
  const [key, priced] = await Promise.all([findProviderKey(deps.db, organizationId), isModelPriced(deps.db, modelId)]);
  if (key === null && !priced) throw modelNotAvailable(modelId);
}
