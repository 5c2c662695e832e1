import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const ModelPrice = z.strictObject({
  modelId: z.string(),
  inputUsdPerMTok: z.coerce.number(),
  outputUsdPerMTok: z.coerce.number(),
  cacheReadUsdPerMTok: z.coerce.number(),
});
export type ModelPrice = z.infer<typeof ModelPrice>;

/** The whole price list (USD per million tokens), by model id. */
export function listModelPricing(db: CommonQueryMethods) {
  return db.any(sql.type(ModelPrice)`
    SELECT model_id AS "modelId", input_usd_per_mtok::float8 AS "inputUsdPerMTok",
           output_usd_per_mtok::float8 AS "outputUsdPerMTok", cache_read_usd_per_mtok::float8 AS "cacheReadUsdPerMTok"
    FROM model_pricing ORDER BY model_id`);
}

/** Whether the price list has this model (the platform key runs only priced models). */
export async function isModelPriced(db: CommonQueryMethods, modelId: string): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM model_pricing WHERE model_id = ${modelId}`);
}
