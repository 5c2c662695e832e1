import { Type } from '@sinclair/typebox';
import { DateTime, StrictObject, Uuid } from '../core/schemas.ts';

/** A plan's limits as the API shows them: each a positive number, or null for no limit (docs/billing.md). */
const Limit = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });
export const LimitsSchema = Type.Object({
  maxAgents: Limit('agents in use (archived ones do not count)'),
  maxUsers: Limit("staff users of the business (the plan's `maxUsers`)"),
  maxEndUserMessagesPerMonth: Limit("end-user messages over all the business's channels per UTC month"),
  maxDocumentsMb: Limit('MB (1,048,576 bytes) of uploaded knowledge documents'),
  monthlyUsageUsd: Type.Union([Type.Number(), Type.Null()], { description: 'usage cost per UTC month, in USD' }),
});

export const PlanSchema = Type.Object({
  id: Uuid(),
  name: Type.String(),
  isPublic: Type.Boolean(),
  isActive: Type.Boolean(),
  maxUsers: Type.Union([Type.Integer(), Type.Null()]),
  priceUsdPerMonth: Type.Number(),
  usageMarkupPercent: Type.Integer(),
  limits: LimitsSchema,
  createdAt: DateTime(),
  updatedAt: DateTime(),
});

/** The plan a business is on, as its organization shows it: no markup (the agency's own figure). */
export const BusinessPlanSchema = Type.Object({
  id: Uuid(),
  name: Type.String(),
  priceUsdPerMonth: Type.Number(),
  limits: LimitsSchema,
});

const PlanName = Type.String({ minLength: 1, maxLength: 200 });
const Price = Type.Number({ minimum: 0, maximum: 1_000_000, description: 'USD per month, at most 2 decimals' });
const Markup = Type.Integer({ minimum: 0, maximum: 1000, description: 'percent added to the usage cost on the bill' });
const Count = Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000_000 }), Type.Null()]);
const UsageUsd = Type.Union([Type.Number({ minimum: 0.01, maximum: 1_000_000_000 }), Type.Null()]);

export const LimitsBody = StrictObject({
  maxAgents: Type.Optional(Count),
  maxUsers: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()])),
  maxEndUserMessagesPerMonth: Type.Optional(Count),
  maxDocumentsMb: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 10_000_000 }), Type.Null()])),
  monthlyUsageUsd: Type.Optional(UsageUsd),
});

export const CreatePlanBody = StrictObject({
  name: PlanName,
  isPublic: Type.Boolean(),
  isActive: Type.Boolean(),
  maxUsers: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  priceUsdPerMonth: Type.Optional(Price),
  usageMarkupPercent: Type.Optional(Markup),
  limits: Type.Optional(LimitsBody),
});

export const UpdatePlanBody = StrictObject({
  name: Type.Optional(PlanName),
  isPublic: Type.Optional(Type.Boolean()),
  isActive: Type.Optional(Type.Boolean()),
  maxUsers: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()])),
  priceUsdPerMonth: Type.Optional(Price),
  usageMarkupPercent: Type.Optional(Markup),
  limits: Type.Optional(LimitsBody),
});
