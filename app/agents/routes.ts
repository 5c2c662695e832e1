import { uuidv7 } from 'uuidv7';
import { findAgentInAgency, insertAgent, listAgentsOfAgency, updateAgent } from '../../sql/agents.ts';
import { defineRoute } from '../core/route.ts';
import { ValidationErrorBody } from '../core/schemas.ts';
import { AI_AGENT_NOT_FOUND, agentNotFound } from './errors.ts';
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
    schemas: { params: AgentIdParams },
    errors: [AI_AGENT_NOT_FOUND],
    responses: {
      200: { description: 'The agent', schema: AgentSchema },
      400: { description: 'agentId is not a UUID', schema: ValidationErrorBody },
    },
    handler: async ({ deps, auth, params }) =>
      (await findAgentInAgency(deps.db, auth.agencyId, params.agentId)) ?? Promise.reject(agentNotFound()),
  }),

  defineRoute({
    method: 'PATCH',
    path: '/ai/agents/:agentId',
    summary: "Change an agent of the caller's agency (name, description, model and its settings, instructions)",
    tags: ['agents'],
    auth: 'jwt',
    policy: { subject: AGENT, action: 'update' },
    schemas: { params: AgentIdParams, body: UpdateAgentBody },
    errors: [AI_AGENT_NOT_FOUND],
    responses: {
      200: { description: 'The agent as changed', schema: AgentSchema },
      400: { description: 'Invalid id or body', schema: ValidationErrorBody },
    },
    handler: async ({ deps, auth, params, body }) =>
      (await updateAgent(deps.db, auth.agencyId, params.agentId, body)) ?? Promise.reject(agentNotFound()),
  }),
];
