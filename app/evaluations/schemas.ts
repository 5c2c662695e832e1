import { Type } from '@sinclair/typebox';
import { AgentSchema, UpdateAgentBody } from '../agents/schemas.ts';
import { DateTime, NON_BLANK_LINE_PATTERN, NUL_FREE_PATTERN, StrictObject, StringEnum, Uuid } from '../core/schemas.ts';
import { RUN_STATUSES } from '../../sql/agent-evaluations.ts';
import { PermissionStatus } from '../tools/schemas.ts';

/** Most cases an agent may have, and most cases one run takes (docs/evaluations.md). */
export const MAX_CASES_PER_AGENT = 200;
export const MAX_CASES_PER_RUN = 50;
/** Most messages of a case and characters of one message's text. */
const MAX_CASE_MESSAGES = 50;
const MAX_MESSAGE_CHARS = 32_000;

/** An agent's whole definition, as a version stores it and a run tries it. */
export const DefinitionSchema = Type.Object({
  name: Type.String(),
  description: Type.String(),
  modelId: Type.Union([Type.String(), Type.Null()]),
  instructions: Type.String(),
  temperature: Type.Union([Type.Number(), Type.Null()]),
  maxOutputTokens: Type.Union([Type.Integer(), Type.Null()]),
  guardrails: AgentSchema.properties.guardrails,
  tools: Type.Array(Type.Object({ toolName: Type.String(), permissionStatus: PermissionStatus, providerKey: Type.String() })),
});

export const VersionParams = StrictObject({ agentId: Uuid(), version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
export const VersionQuery = StrictObject({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, errorMessage: 'must be an integer from 1 to 100' })),
  before: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'the version number the page ends before' })),
});
export const VersionList = Type.Object({
  versions: Type.Array(
    Type.Object({
      version: Type.Integer({ minimum: 1 }),
      createdAt: DateTime(),
      /** The user who made the change; null for a version made before versions were recorded, or a user since removed. */
      createdBy: Type.Union([Uuid(), Type.Null()]),
      note: Type.Union([Type.String(), Type.Null()]),
      definition: DefinitionSchema,
    }),
  ),
  hasMore: Type.Boolean(),
});
export const RestoreBody = StrictObject({
  note: Type.Optional(Type.String({ maxLength: 500, pattern: NUL_FREE_PATTERN, errorMessage: 'must be at most 500 characters' })),
});

const MessageText = Type.String({
  minLength: 1,
  maxLength: MAX_MESSAGE_CHARS,
  pattern: NUL_FREE_PATTERN,
  errorMessage: `must be 1 to ${MAX_MESSAGE_CHARS} characters`,
});
/** A UI message of a case: its text parts (a case holds words, never tool calls). */
const CaseMessageInput = StrictObject({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' })),
  role: StringEnum(['user', 'assistant']),
  parts: Type.Array(StrictObject({ type: Type.Literal('text'), text: MessageText }), { minItems: 1, maxItems: 20 }),
});
const Phrase = Type.String({ minLength: 1, maxLength: 500, pattern: NUL_FREE_PATTERN, errorMessage: 'must be 1 to 500 characters' });
export const ExpectInput = StrictObject(
  {
    contains: Type.Optional(Type.Array(Phrase, { maxItems: 20 })),
    notContains: Type.Optional(Type.Array(Phrase, { maxItems: 20 })),
    toolCalls: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 20 })),
    noToolCalls: Type.Optional(Type.Boolean()),
    judge: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2000, pattern: NUL_FREE_PATTERN, errorMessage: 'must be 1 to 2000 characters' }),
    ),
  },
  { minProperties: 1, errorMessage: 'must hold at least one expectation' },
);
const CaseName = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: NON_BLANK_LINE_PATTERN,
  errorMessage: 'must be 1 to 200 characters on one line, not only spaces',
});
/** `messages` or `fromConversationId`, exactly one (checked in the handler, which names the field). */
export const CreateCaseBody = StrictObject({
  name: CaseName,
  messages: Type.Optional(Type.Array(CaseMessageInput, { minItems: 1, maxItems: MAX_CASE_MESSAGES })),
  fromConversationId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' })),
  expect: ExpectInput,
});
const CaseMessageSchema = Type.Object({
  id: Type.String(),
  role: StringEnum(['user', 'assistant']),
  parts: Type.Array(Type.Object({ type: Type.Literal('text'), text: Type.String() })),
});
const ExpectSchema = Type.Object({
  contains: Type.Optional(Type.Array(Type.String())),
  notContains: Type.Optional(Type.Array(Type.String())),
  toolCalls: Type.Optional(Type.Array(Type.String())),
  noToolCalls: Type.Optional(Type.Boolean()),
  judge: Type.Optional(Type.String()),
});
export const CaseSchema = Type.Object({
  id: Uuid(),
  name: Type.String(),
  messages: Type.Array(CaseMessageSchema),
  expect: ExpectSchema,
  createdAt: DateTime(),
});
export const CaseList = Type.Object({ cases: Type.Array(CaseSchema) });
export const CaseParams = StrictObject({ agentId: Uuid(), caseId: Uuid() });

/** A draft to try: the PATCH's fields (its note and run id aside). */
const { versionNote: _note, evaluationRunId: _run, ...draftFields } = UpdateAgentBody.properties;
export const StartRunBody = StrictObject({
  definition: Type.Optional(StrictObject(draftFields)),
  caseIds: Type.Optional(Type.Array(Uuid(), { minItems: 1, maxItems: MAX_CASES_PER_RUN, uniqueItems: true })),
});
export const RunStarted = Type.Object({ id: Uuid(), status: Type.Literal('running') });
export const RunParams = StrictObject({ agentId: Uuid(), runId: Uuid() });
export const RunSchema = Type.Object({
  id: Uuid(),
  status: StringEnum(RUN_STATUSES),
  /** The agent's version the run started from (its draft, if any, applied on top). */
  version: Type.Integer({ minimum: 0 }),
  definition: DefinitionSchema,
  results: Type.Array(
    Type.Object({
      caseId: Uuid(),
      name: Type.String(),
      passed: Type.Boolean(),
      reasons: Type.Array(Type.String()),
      answer: Type.String(),
      toolCalls: Type.Array(Type.Object({ toolName: Type.String(), input: Type.Unknown() })),
      judge: Type.Union([Type.Object({ passed: Type.Boolean(), reason: Type.String() }), Type.Null()]),
      usage: Type.Object({ totalTokens: Type.Integer({ minimum: 0 }), costUsd: Type.Number({ minimum: 0 }) }),
    }),
  ),
  startedAt: DateTime(),
  endedAt: Type.Union([DateTime(), Type.Null()]),
});
export const RunList = Type.Object({
  runs: Type.Array(
    Type.Object({ id: Uuid(), status: StringEnum(RUN_STATUSES), startedAt: DateTime(), endedAt: Type.Union([DateTime(), Type.Null()]) }),
  ),
});
