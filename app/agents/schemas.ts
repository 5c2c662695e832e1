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

export const CreateAgentBody = StrictObject({
  name: AgentName,
  description: Type.Optional(AgentDescription),
  modelId: Type.Optional(ModelId),
});

/** PATCH: any of the fields; `modelId: null` returns the agent to the default model. */
export const UpdateAgentBody = StrictObject(
  {
    name: Type.Optional(AgentName),
    description: Type.Optional(AgentDescription),
    modelId: Type.Optional(Type.Union([ModelId, Type.Null()])),
  },
  { minProperties: 1 },
);

export const AgentSchema = Type.Object({
  id: Uuid(),
  name: Type.String(),
  description: Type.String(),
  /** The model this agent talks to; null: the deployment's default (`AI_DEFAULT_MODEL`). */
  modelId: Type.Union([Type.String(), Type.Null()]),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});

export const AgentListSchema = Type.Object({ agents: Type.Array(AgentSchema) });
