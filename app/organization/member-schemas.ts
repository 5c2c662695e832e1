import { Type } from '@sinclair/typebox';
import { DateTime, StrictObject, StringEnum, Uuid, UuidParam } from '../core/schemas.ts';

export const MemberRole = StringEnum(['owner', 'member', 'client'], {
  description: "owner or member: a user (staff) with the organization's owner or member role; client: an end customer",
});

export const MemberSchema = Type.Object({
  userId: Uuid(),
  email: Type.String(),
  name: Type.String({ description: 'one line, as the member gave it' }),
  role: MemberRole,
  createdAt: DateTime(),
});
export const MemberList = Type.Object({ members: Type.Array(MemberSchema), hasMore: Type.Boolean() });
export const MemberQuery = StrictObject({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, errorMessage: 'must be an integer from 1 to 200' })),
  before: Type.Optional(Uuid({ description: 'the userId of the last member of the page before' })),
});
export const MemberParams = UuidParam('userId');
