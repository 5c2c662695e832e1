import { Type } from '@sinclair/typebox';
import { DateTime, StrictObject, Uuid } from '../core/schemas.ts';
import { MemberRole } from '../organization/member-schemas.ts';
import { Email, Name, NewPassword } from './schemas.ts';

export const InvitationBody = StrictObject({ email: Email, role: MemberRole });
export const InvitationSchema = Type.Object({
  id: Uuid(),
  email: Type.String(),
  role: MemberRole,
  expiresAt: DateTime(),
});

export const AcceptInvitationBody = StrictObject({
  email: Email,
  code: Type.String({ minLength: 1, maxLength: 200, description: 'the `invitation` code of the emailed link' }),
  password: NewPassword,
  name: Name,
});
export const Accepted = Type.Object({ userId: Uuid(), organizationId: Uuid(), email: Type.String() });
