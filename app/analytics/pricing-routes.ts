import { Type } from '@sinclair/typebox';
import { listModelPricing } from '../../sql/model-pricing.ts';
import { upsertModelPricing } from '../../sql/usage-import.ts';
import { ValidationError } from '../core/errors.ts';
import { defineRoute } from '../core/route.ts';
import { StrictObject, ValidationErrorBody } from '../core/schemas.ts';

/** USD per million tokens, as the pricing file allows: at most 10 digits before and after the point. */
const Price = Type.Number({ minimum: 0, maximum: 9_999_999_999 });

const ModelPrice = Type.Object({
  modelId: Type.String({ minLength: 1, maxLength: 200 }),
  inputUsdPerMTok: Price,
  outputUsdPerMTok: Price,
  cacheReadUsdPerMTok: Price,
});
const PriceList = Type.Array(ModelPrice);
const PriceListBody = Type.Array(StrictObject(ModelPrice.properties), { minItems: 1, maxItems: 1000 });

export const modelPricingRoutes = [
  defineRoute({
    method: 'GET',
    path: '/ai/model-pricing',
    summary: 'The price list that turns tokens into USD (per million tokens)',
    tags: ['analytics'],
    auth: 'jwt',
    responses: { 200: { description: 'Prices by model id', schema: PriceList } },
    handler: ({ deps }) => listModelPricing(deps.db),
  }),
  defineRoute({
    method: 'PUT',
    path: '/ai/model-pricing',
    summary: 'Insert or replace prices by model id (the service admin)',
    description: 'The pricing file of the CLI over HTTP. New prices apply to usage written afterwards; stored usage keeps its cost.',
    tags: ['analytics'],
    auth: 'jwt',
    policy: { subject: 'platform.ai.model-pricing', action: 'update' },
    schemas: { body: PriceListBody },
    responses: {
      200: { description: 'The whole price list after the change', schema: PriceList },
      400: { description: 'Invalid body, or a model id given twice', schema: ValidationErrorBody },
    },
    handler: async ({ deps, body }) => {
      const seen = new Map<string, number>();
      const issues = body.flatMap((price, index) => {
        const first = seen.get(price.modelId);
        seen.set(price.modelId, first ?? index);
        return first === undefined ? [] : [{ path: [String(index), 'modelId'], message: `repeats entry ${first}` }];
      });
      if (issues.length) throw new ValidationError(issues);
      await upsertModelPricing(
        deps.db,
        body.map((price) => ({
          modelId: price.modelId,
          inputUsdPerMTok: price.inputUsdPerMTok.toFixed(10),
          outputUsdPerMTok: price.outputUsdPerMTok.toFixed(10),
          cacheReadUsdPerMTok: price.cacheReadUsdPerMTok.toFixed(10),
        })),
      );
      return listModelPricing(deps.db);
    },
  }),
];
