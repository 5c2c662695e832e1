import { Type } from '@sinclair/typebox';
import { DateTime, NON_BLANK_LINE_PATTERN, NUL_FREE_PATTERN, StrictObject, Uuid, UuidParam } from '../core/schemas.ts';

export const AgentIdParams = UuidParam('agentId');

/** A provider's model id (`openai/gpt-4o-mini`): printable ASCII without spaces. */
export const ModelId = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[\\x21-\\x7e]+$',
  errorMessage: 'must be 1 to 200 printable characters without spaces',
});

const AgentName = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: NON_BLANK_LINE_PATTERN,
  errorMessage: 'must be 1 to 200 characters on one line, not only spaces',
});
const AgentDescription = Type.String({ maxLength: 2000, pattern: NUL_FREE_PATTERN, errorMessage: 'must be at most 2000 characters' });

/** The agent's system message, verbatim (docs/agents-and-tools.md, "The agent's definition"). */
const AgentInstructions = Type.String({
  maxLength: 32_000,
  pattern: NUL_FREE_PATTERN,
  errorMessage: 'must be at most 32000 characters',
});
/** Sampling temperature sent on every model call; null: the provider's default. */
const Temperature = Type.Union([Type.Number({ minimum: 0, maximum: 2 }), Type.Null()], {
  errorMessage: 'must be a number from 0 to 2, or null',
});
/** Most tokens one model call may write; null: the provider's default. */
const MaxOutputTokens = Type.Union([Type.Integer({ minimum: 1, maximum: 128_000 }), Type.Null()], {
  errorMessage: 'must be an integer from 1 to 128000, or null',
});

/** The refusal a message that trips a guardrail is answered with, when the agent sets none. */
export const DEFAULT_REFUSAL = "Sorry, I can't help with that.";
const BlockedTerm = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: NON_BLANK_LINE_PATTERN,
  errorMessage: 'must be 1 to 100 characters on one line, not only spaces',
});
/**
 * Guardrails (docs/agents-and-tools.md, "Guardrails"): every field optional; a new agent takes the
 * defaults for those left out, a PATCH changes only those given.
 */
const GuardrailsInput = StrictObject({
  blockedTerms: Type.Optional(Type.Array(BlockedTerm, { maxItems: 200, errorMessage: 'must be at most 200 terms' })),
  moderationModel: Type.Optional(Type.Union([ModelId, Type.Null()])),
  refusal: Type.Optional(
    Type.String({ minLength: 1, maxLength: 500, pattern: NUL_FREE_PATTERN, errorMessage: 'must be 1 to 500 characters' }),
  ),
});

export const CreateAgentBody = StrictObject({
  name: AgentName,
  description: Type.Optional(AgentDescription),
  modelId: Type.Optional(ModelId),
  instructions: Type.Optional(AgentInstructions),
  temperature: Type.Optional(Temperature),
  maxOutputTokens: Type.Optional(MaxOutputTokens),
  guardrails: Type.Optional(GuardrailsInput),
});

/** PATCH: any of the fields; `modelId: null` returns the agent to the default model. */
export const UpdateAgentBody = StrictObject(
  {
    name: Type.Optional(AgentName),
    description: Type.Optional(AgentDescription),
    modelId: Type.Optional(Type.Union([ModelId, Type.Null()])),
    instructions: Type.Optional(AgentInstructions),
    temperature: Type.Optional(Temperature),
    maxOutputTokens: Type.Optional(MaxOutputTokens),
    guardrails: Type.Optional(GuardrailsInput),
    /** Recorded with the version this change makes (docs/evaluations.md, "Versions"). */
    versionNote: Type.Optional(Type.String({ maxLength: 500, pattern: NUL_FREE_PATTERN, errorMessage: 'must be at most 500 characters' })),
    /** The change applies only when this evaluation run passed on exactly the definition it results in (docs/evaluations.md, "The gate"). */
    evaluationRunId: Type.Optional(Uuid()),
  },
  { minProperties: 1 },
);

export const AgentSchema = Type.Object({
  id: Uuid(),
  name: Type.String(),
  description: Type.String(),
  /** The model this agent talks to; null: the deployment's default (`AI_DEFAULT_MODEL`). */
  modelId: Type.Union([Type.String(), Type.Null()]),
  /** The system message, verbatim ("" by default). */
  instructions: Type.String(),
  temperature: Type.Union([Type.Number(), Type.Null()]),
  maxOutputTokens: Type.Union([Type.Integer(), Type.Null()]),
  guardrails: Type.Object({
    /** Matched case-insensitively as whole words (a term of several words as that phrase). */
    blockedTerms: Type.Array(Type.String()),
    /** The model that checks each new user message (its first word `unsafe` trips it); null: none. */
    moderationModel: Type.Union([Type.String(), Type.Null()]),
    /** The assistant's answer to a message that trips a guardrail. */
    refusal: Type.String(),
  }),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});

export const AgentListSchema = Type.Object({ agents: Type.Array(AgentSchema) });
