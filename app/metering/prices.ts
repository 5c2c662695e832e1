import { isModelPriced } from '../../sql/model-pricing.ts';
import type { AppDeps } from '../core/deps.ts';

/*
 * Whether the platform may pay for a model: it is in the price list. A turn asks for its model and
 * its title's, a guardrail check and an embedding for theirs; the answer "priced" is kept for
 * `PRICED_KEPT_MS` per process (the price list only gains models and changes prices: the routes
 * and the import upsert, nothing removes one), "unpriced" is asked again each time, so a model
 * priced now is taken at once.
 */

/** How long this process trusts that a model is priced without asking again. */
export const PRICED_KEPT_MS = 60_000;
/** Most models remembered per database (the oldest goes first). */
const MAX_REMEMBERED = 1_000;
const pricedAt = new WeakMap<object, Map<string, number>>();

/** Whether `modelId` is in the price list (a remembered "priced" answers without a query). */
export async function isPriced(deps: Pick<AppDeps, 'db' | 'clock'>, modelId: string): Promise<boolean> {
  let known = pricedAt.get(deps.db);
  const at = known?.get(modelId);
  const now = deps.clock().getTime();
  if (at !== undefined && now - at >= 0 && now - at < PRICED_KEPT_MS) return true;
  const priced = await isModelPriced(deps.db, modelId);
  if (!priced) return false;
  if (!known) pricedAt.set(deps.db, (known = new Map()));
  known.delete(modelId);
  if (known.size >= MAX_REMEMBERED) known.delete(known.keys().next().value!);
  known.set(modelId, now);
  return true;
}
