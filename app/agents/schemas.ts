import { Type } from '@sinclair/typebox';
import { CodedErrorBody, DateTime, StrictObject, Uuid, UuidParam } from '../core/schemas.ts';

/** Text without control characters (PostgreSQL text cannot hold NUL; names are single-line). */
export const LINE_CHAR = '[^\\u0000-\\u001f\\u007f]';

export const AgentIdParams = UuidParam('agentId');

export const CreateAgentBody = StrictObject({
  name: Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: `^${LINE_CHAR}*\\S${LINE_CHAR}*$`,
    errorMessage: 'must be 1 to 200 characters on one line, not only spaces',
  }),
  description: Type.Optional(Type.String({ maxLength: 2000, pattern: '^[^\\u0000]*$', errorMessage: 'must be at most 2000 characters' })),
});

export const AgentSchema = Type.Object({
  id: Uuid(),
  name: Type.String(),
  description: Type.String(),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});

export const AgentListSchema = Type.Object({ agents: Type.Array(AgentSchema) });

export const agentNotFoundResponse = {
  description: "No agent with this id in the caller's agency (`AI.AGENT_NOT_FOUND`)",
  schema: CodedErrorBody,
};
