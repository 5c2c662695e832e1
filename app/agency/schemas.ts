import { Type } from '@sinclair/typebox';
import { DateTime, StrictObject, Uuid } from '../core/schemas.ts';
import { Email, Name } from '../identity/schemas.ts';

export const BusinessSchema = Type.Object({
  id: Uuid(),
  name: Type.String(),
  plan: Type.Union([Type.Object({ id: Uuid(), name: Type.String() }), Type.Null()], {
    description: "the business's plan; null while businesses carry no plan",
  }),
  users: Type.Integer({ description: 'its staff users (clients not counted)' }),
  agents: Type.Integer({ description: 'its agents in use (archived ones not counted)' }),
  createdAt: DateTime(),
  monthToDate: Type.Object(
    {
      turns: Type.Integer({ description: 'chat turns started in the business this UTC month (staff and end users)' }),
      usageCostUsd: Type.Number({ description: 'usage cost on the platform key this UTC month (its own provider key is its own bill)' }),
      billedUsd: Type.Number({ description: 'what the agency bills the business for it so far, rounded half-up to cents' }),
    },
    { description: 'since the start of the current UTC month' },
  ),
});
export const BusinessList = Type.Object({ businesses: Type.Array(BusinessSchema), hasMore: Type.Boolean() });
export const BusinessQuery = StrictObject({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, errorMessage: 'must be an integer from 1 to 100' })),
  before: Type.Optional(Uuid({ description: 'the id of the last business of the page before' })),
});

export const CreateBusinessBody = StrictObject({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  planId: Uuid({ description: 'an active plan of the agency' }),
  owner: StrictObject({ email: Email, name: Name }),
});
export const CreatedBusiness = Type.Object({
  business: BusinessSchema,
  invitation: Type.Object({ id: Uuid(), email: Type.String(), expiresAt: DateTime() }),
});
