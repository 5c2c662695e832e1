import { deleteToolOverride, listToolOverridesOfUser, upsertToolOverride } from '../../sql/tool-overrides.ts';
import { AgentIdParams } from '../agents/schemas.ts';
import { agentRoute } from '../agents/scope.ts';
import { defineRoute } from '../core/route.ts';
import { ORGANIZATION_SCOPE } from '../core/route-scope.ts';
import { ValidationErrorBody } from '../core/schemas.ts';
import { OverrideBody, OverrideListSchema, OverrideParams, OverrideSchema } from './schemas.ts';

const invalid = { description: 'Invalid body or agentId', schema: ValidationErrorBody };

/** A tool name no override can carry (see ToolName): nothing to delete. */
const storable = (toolName: string) => toolName.length > 0 && [...toolName].length <= 200 && !toolName.includes('\u0000');

/** Approve-always overrides of the caller (`userId` claim) for an agent of the acting organization. */
export const toolOverrideRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ai/agents/:agentId/tool-overrides',
    summary: 'Stop asking the caller to approve this tool of this agent',
    description: '200 with the stored row both for a new override and for a repeat (no 201, no 409, never a second row).',
    tags: ['tools'],
    ...agentRoute({ access: 'any' }),
    schemas: { params: AgentIdParams, body: OverrideBody },
    responses: { 200: { description: 'The override', schema: OverrideSchema }, 400: invalid },
    handler: ({ deps, scope, agent, body }) => upsertToolOverride(deps.db, scope.userId, agent.id, body.toolName),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/ai/agents/:agentId/tool-overrides/:toolName',
    summary: "Remove the caller's override; approval prompts come back",
    // The organization's scope, not the agent's: the answer is the same 204 for any agent id (the DELETE is confined to the acting organization).
    description:
      '204 whether or not the override existed, and for an agent that is not one of the acting organization (nothing is changed).',
    tags: ['tools'],
    auth: 'jwt',
    scope: ORGANIZATION_SCOPE,
    schemas: { params: OverrideParams },
    status: 204,
    responses: { 204: { description: 'No override remains' }, 400: invalid },
    handler: async ({ deps, scope, params }) => {
      if (!storable(params.toolName)) return;
      await deleteToolOverride(deps.db, { ...scope, agentId: params.agentId }, params.toolName);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/tool-overrides',
    summary: "The caller's own overrides for this agent",
    tags: ['tools'],
    ...agentRoute({ access: 'any' }),
    schemas: { params: AgentIdParams },
    responses: { 200: { description: 'Overrides, oldest first', schema: OverrideListSchema }, 400: invalid },
    handler: async ({ deps, scope, agent }) => ({ overrides: await listToolOverridesOfUser(deps.db, scope.userId, agent.id) }),
  }),
];
