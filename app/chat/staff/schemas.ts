import { Type } from '@sinclair/typebox';
import { DateTime, NUL_FREE_PATTERN, StrictObject, StringEnum, Uuid, UuidParam } from '../../core/schemas.ts';
import { MAX_DENIAL_REASON_CHARS } from '../../tools/approvals.ts';
import { EndUserKind } from '../schemas.ts';

const GIVEN = 'as the end user gave it (the business for a verified user, the client for its account): show it quoted, as theirs';
const EndUserRef = Type.Object({
  id: Uuid(),
  externalId: Type.Union([Type.String(), Type.Null()], {
    description: "the business's id of a verified user, the client's id; null: anonymous",
  }),
  verified: Type.Boolean(),
  kind: EndUserKind,
  name: Type.Union([Type.String(), Type.Null()], { description: `one line, ${GIVEN}` }),
  email: Type.Union([Type.String(), Type.Null()], { description: `one line, ${GIVEN}` }),
});

export const StaffApprovalSchema = Type.Object({
  id: Uuid(),
  agentId: Uuid(),
  conversationId: Uuid({ description: "the service's id of the conversation, as the transcripts name it" }),
  endUser: EndUserRef,
  toolName: Type.String(),
  input: Type.Optional(Type.Unknown({ description: 'the tool call as the model gave it (always present)' })),
  status: StringEnum(['pending', 'answered']),
  approved: Type.Union([Type.Boolean(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  requestedAt: DateTime(),
  answeredAt: Type.Union([DateTime(), Type.Null()]),
  answeredBy: Type.Union([Uuid(), Type.Null()], { description: 'the staff user who answered; null while pending or when it expired' }),
});

export const StaffApprovalList = Type.Object({ approvals: Type.Array(StaffApprovalSchema), hasMore: Type.Boolean() });

export const StaffApprovalQuery = StrictObject({
  status: Type.Optional(StringEnum(['pending', 'answered'], { default: 'pending' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, errorMessage: 'must be an integer from 1 to 100' })),
  before: Type.Optional(Uuid()),
});

export const StaffApprovalParams = UuidParam('approvalId');

export const StaffAnswerBody = StrictObject({
  approved: Type.Boolean(),
  reason: Type.Optional(
    Type.String({
      maxLength: MAX_DENIAL_REASON_CHARS,
      pattern: NUL_FREE_PATTERN,
      errorMessage: `must be at most ${MAX_DENIAL_REASON_CHARS} characters`,
    }),
  ),
});

export const TranscriptSummary = Type.Object({
  id: Uuid({ description: "the service's id of the conversation (end users' own ids may repeat across end users)" }),
  endUser: EndUserRef,
  title: Type.String(),
  messageCount: Type.Integer(),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});
export const TranscriptList = Type.Object({ conversations: Type.Array(TranscriptSummary), hasMore: Type.Boolean() });
export const TranscriptQuery = StrictObject({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, errorMessage: 'must be an integer from 1 to 100' })),
  before: Type.Optional(Uuid({ description: 'the id of the last conversation of the page before' })),
});
export const TranscriptParams = StrictObject({ agentId: Uuid(), conversationId: Uuid() });
export const TranscriptDetail = Type.Object({
  id: Uuid(),
  endUser: EndUserRef,
  title: Type.String(),
  messages: Type.Array(
    Type.Object({
      id: Type.String(),
      role: StringEnum(['user', 'assistant']),
      parts: Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true })),
    }),
  ),
});
