import { Type } from '@sinclair/typebox';
import { deleteAgentMcpServer, findAgentMcpServer, listAgentMcpServers } from '../../sql/agent-mcp-servers.ts';
import { notFound } from '../core/errors.ts';
import { defineRoute } from '../core/route.ts';
import { toolsOfServer } from '../mcp-client/tool-discovery.ts';
import { editMcpServer } from './edit.ts';
import { agentRoute } from '../agents/scope.ts';
import { ErrorBody } from '../core/schemas.ts';
import { MCP_AUTHORIZATION_REQUIRED, MCP_SERVER_ERRORS } from '../mcp-client/errors.ts';
import { TOKEN_REQUEST_ERRORS } from '../mcp-oauth/errors.ts';
import { addMcpServer } from './provision.ts';
import {
  AddMcpServerBody,
  AgentMcpServerDto,
  AgentParams,
  EditMcpServerBody,
  ServerParams,
  ServerToolsDto,
  ToolsQuery,
} from './schemas.ts';

const tags = ['mcp-servers'];
/** Routes of one server: its agent may be missing (`AI.AGENT_NOT_FOUND`, from the scope) or the server itself. */
const ofServer = {
  404: { description: 'No MCP server with this id on the agent', schema: ErrorBody },
};

export const agentMcpServerRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ai/agents/:agentId/mcp-servers',
    // A DNS lookup of the URL at save time (ADR 0033).
    rateLimit: { limit: 30, windowMs: '1m', identifierType: 'userId', policyName: 'mcp-servers-add', source: 'project' },
    summary: 'Add an MCP server to an agent, from the catalog or by URL',
    description:
      "With `availableMcpId` and `variantType`: the catalog flow (url and transportType default to the variant's). " +
      'Credentials are encrypted at rest and never returned. See docs/mcp.md.',
    tags,
    ...agentRoute({ access: 'update' }),
    schemas: { params: AgentParams, body: AddMcpServerBody },
    status: 201,
    idempotent: true,
    responses: {
      201: { description: 'The saved server', schema: AgentMcpServerDto },
      404: { description: 'No catalog entry with this id', schema: ErrorBody },
      422: { description: 'Missing required credentials (`missingFields`)', schema: ErrorBody },
    },
    handler: ({ deps, scope, agent, body }) => addMcpServer(deps, scope.organizationId, agent.id, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/mcp-servers',
    summary: "An agent's MCP servers",
    tags,
    ...agentRoute({ access: 'read' }),
    schemas: { params: AgentParams },
    responses: { 200: { description: 'Oldest first', schema: Type.Array(AgentMcpServerDto) } },
    handler: ({ deps, scope, agent }) => listAgentMcpServers(deps.db, scope.organizationId, agent.id),
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/mcp-servers/:serverId',
    summary: "One of an agent's MCP servers, with its connection status",
    tags,
    ...agentRoute({ access: 'read' }),
    schemas: { params: ServerParams },
    responses: { 200: { description: 'The server', schema: AgentMcpServerDto }, ...ofServer },
    handler: async ({ deps, scope, params }) => {
      const server = await findAgentMcpServer(deps.db, scope.organizationId, params.agentId, params.serverId);
      if (!server) throw notFound('MCP server');
      return server;
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/ai/agents/:agentId/mcp-servers/:serverId',
    // A DNS lookup of the new URL at save time (ADR 0033).
    rateLimit: { limit: 30, windowMs: '1m', identifierType: 'userId', policyName: 'mcp-servers-edit', source: 'project' },
    summary: 'Change the name, URL or credentials of an MCP server; its tool permissions stay',
    description:
      'URL and credentials follow the rules of creation (docs/mcp.md). `credentials` replace the stored ones whole. ' +
      'A new URL of an OAuth server drops its tokens (authorize again); a URL on another origin drops the stored ' +
      'credentials unless `credentials` are given in the same request.',
    tags,
    ...agentRoute({ access: 'update' }),
    schemas: { params: ServerParams, body: EditMcpServerBody },
    responses: {
      200: { description: 'The changed server', schema: AgentMcpServerDto },
      ...ofServer,
      422: { description: 'Missing required credentials (`missingFields`)', schema: ErrorBody },
    },
    handler: ({ deps, scope, params, body }) => editMcpServer(deps, { organizationId: scope.organizationId, ...params }, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/mcp-servers/:serverId/tools',
    // Connects to the MCP server (initialize, tools/list pages), and may refresh its token.
    rateLimit: { limit: 30, windowMs: '1m', identifierType: 'userId', policyName: 'mcp-server-tools', source: 'project' },
    summary: "The tools an MCP server lists, with the agent's permission for each",
    description:
      'Connects with the stored auth (an OAuth token is refreshed as needed; a 401 refreshes it once and retries), ' +
      'follows tools/list cursors (bounded in bytes, pages and tools; no schema is compiled), and caches the list briefly ' +
      '(`refresh=true` bypasses). `permissionStatus` is the ' +
      "agent's permission under providerKey `mcp:<serverId>`, null when it has none. Updates the server's status.",
    tags,
    ...agentRoute({ access: 'read' }),
    schemas: { params: ServerParams, query: ToolsQuery },
    responses: {
      200: { description: 'The tools', schema: ServerToolsDto },
      ...ofServer,
    },
    // MCP.AUTHORIZATION_REQUIRED: an OAuth server not authorized yet; MCP.SERVER_UNAUTHORIZED: metadata.status says what
    // to do; MCP.SERVER_RESPONSE_TOO_LARGE: one response over its cap; MCP.SERVER_TOOLS_TOO_LARGE: the listing over
    // 4 MiB, or a tool field over its cap (metadata.limit, maxBytes, tool); MCP_OAUTH.*: the token refresh failed.
    errors: [MCP_AUTHORIZATION_REQUIRED, ...MCP_SERVER_ERRORS, ...TOKEN_REQUEST_ERRORS],
    handler: ({ deps, scope, params, query }) =>
      toolsOfServer(deps, { organizationId: scope.organizationId, ...params }, query.refresh === 'true'),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/ai/agents/:agentId/mcp-servers/:serverId',
    summary: 'Remove an MCP server from an agent',
    tags,
    ...agentRoute({ access: 'update' }),
    schemas: { params: ServerParams },
    status: 204,
    responses: {
      204: { description: 'Removed' },
      ...ofServer,
    },
    handler: async ({ deps, scope, params }) => {
      if (!(await deleteAgentMcpServer(deps.db, scope.organizationId, params.agentId, params.serverId))) {
        throw notFound('MCP server');
      }
    },
  }),
];
