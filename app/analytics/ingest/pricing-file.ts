import type { ModelPricingInput } from '../../../sql/usage-import.ts';

const DECIMAL = /^\d{1,10}(\.\d{1,10})?$/;
const PRICE_FIELDS = ['inputUsdPerMTok', 'outputUsdPerMTok', 'cacheReadUsdPerMTok'] as const;

/**
 * Parses a pricing file: `[ { modelId, inputUsdPerMTok, outputUsdPerMTok, cacheReadUsdPerMTok } ]`
 * (USD per million tokens, docs/interface.md §4). Throws an Error naming the entry and field.
 */
export function parsePricingFile(text: string): ModelPricingInput[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('the pricing file is not valid JSON');
  }
  if (!Array.isArray(value)) throw new Error('the pricing file must be a JSON array');
  const seen = new Set<string>();
  return value.map((entry: unknown, index) => {
    const at = (field?: string) => `entry ${index}${field ? `, field ${field}` : ''}`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new Error(`${at()}: must be an object`);
    const price = entry as Record<string, unknown>;
    for (const key of Object.keys(price)) {
      if (key !== 'modelId' && !(PRICE_FIELDS as readonly string[]).includes(key)) throw new Error(`${at(key)}: unknown field`);
    }
    const modelId = price.modelId;
    if (typeof modelId !== 'string' || modelId.length < 1 || modelId.length > 200) {
      throw new Error(`${at('modelId')}: must be a string of 1 to 200 characters`);
    }
    if (seen.has(modelId)) throw new Error(`${at('modelId')}: ${modelId} appears twice`);
    seen.add(modelId);
    const amounts = PRICE_FIELDS.map((field) => {
      const v = price[field];
      const text = typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v.toFixed(10) : typeof v === 'string' ? v : '';
      if (!DECIMAL.test(text)) throw new Error(`${at(field)}: ${v === undefined ? 'Required' : 'must be a non-negative number'}`);
      return text;
    });
    return { modelId, inputUsdPerMTok: amounts[0]!, outputUsdPerMTok: amounts[1]!, cacheReadUsdPerMTok: amounts[2]! };
  });
}
