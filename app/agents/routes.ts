import { uuidv7 } from 'uuidv7';
import { insertAgent, listAgentsOfAgency, updateAgent } from '../../sql/agents.ts';
import { defineRoute } from '../core/route.ts';
import { ValidationErrorBody } from '../core/schemas.ts';
import { agentNotFound } from './errors.ts';
import { AGENT_SCOPE } from './scope.ts';
import { AgentIdParams, AgentListSchema, AgentSchema, CreateAgentBody, UpdateAgentBody } from './schemas.ts';

const AGENT = 'ai.agent';

/** Minimal agent routes (docs/interface.md §7), always scoped to the caller's agency (`agencyId` claim). */
export const agentRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ai/agents',
    summary: "Create an agent in the caller's agency",
    tags: ['agents'],
    auth: 'jwt',
    policy: { subject: AGENT, action: 'create' },
    schemas: { body: CreateAgentBody },
    status: 201,
    idempotent: true,
    responses: {
      201: { description: 'The new agent', schema: AgentSchema },
      400: { description: 'Invalid body', schema: ValidationErrorBody },
    },
    handler: ({ deps, auth, body }) =>
      insertAgent(deps.db, {
        id: uuidv7(),
        agencyId: auth.agencyId,
        name: body.name,
        description: body.description ?? '',
        modelId: body.modelId ?? null,
        instructions: body.instructions ?? '',
        temperature: body.temperature ?? null,
        maxOutputTokens: body.maxOutputTokens ?? null,
      }),
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents',
    summary: "List the agents of the caller's agency",
    tags: ['agents'],
    auth: 'jwt',
    policy: { subject: AGENT, action: 'read' },
    responses: { 200: { description: 'Agents, oldest first', schema: AgentListSchema } },
    handler: async ({ deps, auth }) => ({ agents: await listAgentsOfAgency(deps.db, auth.agencyId) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId',
    summary: "One agent of the caller's agency",
    tags: ['agents'],
    auth: 'jwt',
    policy: { subject: AGENT, action: 'read' },
    scope: AGENT_SCOPE,
    schemas: { params: AgentIdParams },
    responses: {
      200: { description: 'The agent', schema: AgentSchema },
      400: { description: 'agentId is not a UUID', schema: ValidationErrorBody },
    },
    handler: ({ agent }) => agent,
  }),

  defineRoute({
    method: 'PATCH',
    path: '/ai/agents/:agentId',
    summary: "Change an agent of the caller's agency (name, description, model and its settings, instructions)",
    tags: ['agents'],
    auth: 'jwt',
    policy: { subject: AGENT, action: 'update' },
    scope: AGENT_SCOPE,
    schemas: { params: AgentIdParams, body: UpdateAgentBody },
    responses: {
      200: { description: 'The agent as changed', schema: AgentSchema },
      400: { description: 'Invalid id or body', schema: ValidationErrorBody },
    },
    // The UPDATE is the agent's own write: its WHERE keeps the agency (agents are never deleted).
    handler: async ({ deps, auth, agent, body }) =>
      (await updateAgent(deps.db, auth.agencyId, agent.id, body)) ?? Promise.reject(agentNotFound()),
  }),
];
