import { Type } from '@sinclair/typebox';
import { DateTime, Uuid } from '../core/schemas.ts';
import { BusinessPlanSchema } from '../plans/schemas.ts';

/** An organization as its routes answer it (GET/PATCH /organization/my, a business moved to a plan). */
export const OrganizationSchema = Type.Object({
  id: Uuid(),
  name: Type.String(),
  type: Type.Union([Type.Literal('AGENCY'), Type.Literal('BUSINESS'), Type.Literal('PLATFORM')]),
  parentId: Type.Union([Uuid(), Type.Null()]),
  allowBusinessRegistration: Type.Boolean(),
  allowClientRegistration: Type.Boolean({
    description: 'whether anyone may register as a client of this organization (client register, a Google sign-in as a new client)',
  }),
  userCapacity: Type.Union([Type.Integer(), Type.Null()]),
  plan: Type.Union([BusinessPlanSchema, Type.Null()], { description: 'the plan a BUSINESS is on (docs/billing.md); null otherwise' }),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});
