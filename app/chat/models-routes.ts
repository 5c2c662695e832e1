import { Type } from '@sinclair/typebox';
import { listModelPricing } from '../../sql/model-pricing.ts';
import { findProviderKey } from '../../sql/provider-keys.ts';
import { defineRoute } from '../core/route.ts';
import { ORGANIZATION_SCOPE } from '../core/route-scope.ts';

const ModelOffer = Type.Object({
  modelId: Type.String(),
  inputUsdPerMTok: Type.Number(),
  outputUsdPerMTok: Type.Number(),
  cacheReadUsdPerMTok: Type.Number(),
});
const ModelCatalog = Type.Object({
  models: Type.Array(ModelOffer, { description: "The price list's models: what an agent may run on the platform's key" }),
  anyModel: Type.Boolean({ description: 'The organization has its own provider key (BYOK), so its agents may name any model' }),
});

/** The models an organization's agents may run (docs/chat.md, "Models someone pays for"). */
export const modelRoutes = [
  defineRoute({
    method: 'GET',
    path: '/ai/models',
    summary: "The models this organization's agents may run, with their prices (USD per million tokens)",
    tags: ['chat'],
    auth: 'jwt',
    principal: 'user',
    scope: ORGANIZATION_SCOPE,
    responses: { 200: { description: 'The model catalog', schema: ModelCatalog } },
    handler: async ({ deps, scope }) => {
      const [models, key] = await Promise.all([listModelPricing(deps.db), findProviderKey(deps.db, scope.organizationId)]);
      return { models, anyModel: key !== null };
    },
  }),
];
