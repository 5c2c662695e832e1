import { findAgentInAgency } from '../../sql/agents.ts';
import { deleteToolOverride, listToolOverridesOfUser, upsertToolOverride } from '../../sql/tool-overrides.ts';
import { agentNotFound } from '../agents/errors.ts';
import { AI_AGENT_NOT_FOUND } from '../agents/errors.ts';
import { AgentIdParams } from '../agents/schemas.ts';
import { defineRoute } from '../core/route.ts';
import { ValidationErrorBody } from '../core/schemas.ts';
import { OverrideBody, OverrideListSchema, OverrideParams, OverrideSchema } from './schemas.ts';

const invalid = { description: 'Invalid body or agentId', schema: ValidationErrorBody };

/** A tool name no override can carry (see ToolName): nothing to delete. */
const storable = (toolName: string) => toolName.length > 0 && [...toolName].length <= 200 && !toolName.includes('\u0000');

/** Approve-always overrides of the caller (`userId` claim) for an agent of the caller's agency. */
export const toolOverrideRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ai/agents/:agentId/tool-overrides',
    summary: 'Stop asking the caller to approve this tool of this agent',
    description: '200 with the stored row both for a new override and for a repeat (no 201, no 409, never a second row).',
    tags: ['tools'],
    auth: 'jwt',
    schemas: { params: AgentIdParams, body: OverrideBody },
    errors: [AI_AGENT_NOT_FOUND],
    responses: { 200: { description: 'The override', schema: OverrideSchema }, 400: invalid },
    handler: async ({ deps, auth, params, body }) => {
      if (!(await findAgentInAgency(deps.db, auth.agencyId, params.agentId))) throw agentNotFound();
      return upsertToolOverride(deps.db, auth.userId, params.agentId, body.toolName);
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/ai/agents/:agentId/tool-overrides/:toolName',
    summary: "Remove the caller's override; approval prompts come back",
    description: "204 whether or not the override existed, and for an agent that is not one of the caller's agency (nothing is changed).",
    tags: ['tools'],
    auth: 'jwt',
    schemas: { params: OverrideParams },
    status: 204,
    responses: { 204: { description: 'No override remains' }, 400: invalid },
    handler: async ({ deps, auth, params }) => {
      if (!storable(params.toolName)) return;
      await deleteToolOverride(deps.db, { agencyId: auth.agencyId, userId: auth.userId, agentId: params.agentId }, params.toolName);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/tool-overrides',
    summary: "The caller's own overrides for this agent",
    tags: ['tools'],
    auth: 'jwt',
    schemas: { params: AgentIdParams },
    errors: [AI_AGENT_NOT_FOUND],
    responses: { 200: { description: 'Overrides, oldest first', schema: OverrideListSchema }, 400: invalid },
    handler: async ({ deps, auth, params }) => {
      if (!(await findAgentInAgency(deps.db, auth.agencyId, params.agentId))) throw agentNotFound();
      return { overrides: await listToolOverridesOfUser(deps.db, auth.userId, params.agentId) };
    },
  }),
];
