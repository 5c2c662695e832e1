import { listToolPermissionsOfAgent } from '../../sql/tool-permissions.ts';
import { AgentIdParams } from '../agents/schemas.ts';
import { agentRoute } from '../agents/scope.ts';
import { defineRoute } from '../core/route.ts';
import { ValidationErrorBody } from '../core/schemas.ts';
import { catalogFor, findBuiltinTool } from './builtins.ts';
import { replaceAgentTools } from './permissions.ts';
import { offeredToolsOf } from './resolution.ts';
import { CatalogSchema, EffectiveToolsSchema, ReplaceToolsBody, ReplaceToolsResult, ToolSetSchema } from './schemas.ts';

const invalid = { description: 'Invalid body or agentId', schema: ValidationErrorBody };

/**
 * Tool catalog and per-agent tool permissions (docs/interface.md §7, "Tool permissions and
 * overrides"): a JWT is required and the agent must be one of the acting organization. Replacing
 * the set needs `update` on `ai.agent` (ADR 0020); reading it needs no policy.
 */
export const toolRoutes = [
  defineRoute({
    method: 'GET',
    path: '/ai/tools/catalog',
    summary: 'The static catalog of built-in tools, and whether this deployment runs each',
    description:
      "A tool that is not `available` is never offered to a model (it may stay in an agent's set); `unavailableReason` says why. " +
      '`suggestedPermission` is the level a console proposes for a new agent.',
    tags: ['tools'],
    auth: 'jwt',
    responses: { 200: { description: 'Every built-in tool with its provider', schema: CatalogSchema } },
    handler: ({ deps }) => catalogFor(deps.config),
  }),
  defineRoute({
    method: 'PUT',
    path: '/ai/agents/:agentId/tools',
    summary: "Replace an agent's whole tool set",
    description:
      'The body is the complete set; tools not in it lose their entry. A built-in tool must be in the catalog with its own providerKey; ' +
      '`mcp:<serverId>` must name an MCP server of this agent; a toolName may appear once. The legacy body `{ enabledTools }` is a 400.',
    tags: ['tools'],
    // The policy is checked before the agent is looked up, so a caller without it learns nothing about ids.
    ...agentRoute({ access: 'update' }),
    schemas: { params: AgentIdParams, body: ReplaceToolsBody },
    responses: {
      200: { description: 'The set was replaced', schema: ReplaceToolsResult },
      400: invalid,
    },
    handler: ({ deps, scope, agent, body }) =>
      replaceAgentTools(deps.db, scope.organizationId, agent.id, body.tools, { userId: scope.userId, now: deps.clock() }),
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/tools',
    summary: "An agent's tool set",
    tags: ['tools'],
    ...agentRoute({ access: 'any' }),
    schemas: { params: AgentIdParams },
    responses: {
      200: { description: 'The set, in the order it was given', schema: ToolSetSchema },
      400: invalid,
    },
    handler: async ({ deps, agent }) => ({ agentId: agent.id, tools: await listToolPermissionsOfAgent(deps.db, agent.id) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/tools/effective',
    summary: 'The tools the model is offered for the caller',
    description:
      'Blocked tools and tools outside the set are left out; `needs_approval` tools have `requiresApproval: true` unless the caller has an override. ' +
      '`available: false`: a built-in tool this deployment does not run (see the catalog), which the chat does not offer.',
    tags: ['tools'],
    ...agentRoute({ access: 'any' }),
    schemas: { params: AgentIdParams },
    responses: {
      200: { description: 'Offered tools, in the order of the set', schema: EffectiveToolsSchema },
      400: invalid,
    },
    handler: async ({ deps, scope, agent }) => {
      const tools = await offeredToolsOf(deps.db, agent.id, scope.userId);
      // An MCP tool's availability is its server's listing at turn time; a built-in's is the deployment's.
      const available = (toolName: string, providerKey: string) => {
        const builtin = findBuiltinTool(toolName);
        return builtin?.providerKey === providerKey ? builtin.availability(deps.config).available : true;
      };
      return {
        agentId: agent.id,
        tools: [...tools.values()].map(({ provider: _provider, ...tool }) => ({
          ...tool,
          available: available(tool.toolName, tool.providerKey),
        })),
      };
    },
  }),
];
