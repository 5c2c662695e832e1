import { Type } from '@sinclair/typebox';
import { deleteAgentMcpServer, listAgentMcpServers } from '../../sql/agent-mcp-servers.ts';
import { HttpError } from '../core/errors.ts';
import { defineRoute } from '../core/route.ts';
import { CodedErrorBody, CodedOrPlainErrorBody, ErrorBody } from '../core/schemas.ts';
import { addMcpServer, requireAgent } from './provision.ts';
import { AddMcpServerBody, AgentMcpServerDto, AgentParams, ServerParams } from './schemas.ts';

const tags = ['mcp-servers'];
const common = {
  401: { description: 'Missing or invalid access token', schema: ErrorBody },
  403: { description: 'Missing the policy', schema: ErrorBody },
  404: { description: '`AI.AGENT_NOT_FOUND` (also for an agent of another agency)', schema: CodedErrorBody },
};

export const agentMcpServerRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ai/agents/:agentId/mcp-servers',
    summary: "Add an MCP server to an agent, from the catalog or by URL",
    description:
      'With `availableMcpId` and `variantType`: the catalog flow (url and transportType default to the variant\'s). ' +
      'Credentials are encrypted at rest and never returned. See docs/mcp.md.',
    tags,
    auth: 'jwt',
    principal: 'user',
    policy: { subject: 'ai.agent', action: 'update' },
    schemas: { params: AgentParams, body: AddMcpServerBody },
    status: 201,
    responses: {
      201: { description: 'The saved server', schema: AgentMcpServerDto },
      ...common,
      404: { description: '`AI.AGENT_NOT_FOUND`, or `{ statusCode, message }` for an unknown catalog entry', schema: CodedOrPlainErrorBody },
      422: { description: 'Missing required credentials (`missingFields`)', schema: ErrorBody },
    },
    handler: ({ deps, auth, params, body }) => addMcpServer(deps, auth.agencyId, params.agentId, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/mcp-servers',
    summary: "An agent's MCP servers",
    tags,
    auth: 'jwt',
    principal: 'user',
    policy: { subject: 'ai.agent', action: 'read' },
    schemas: { params: AgentParams },
    responses: { 200: { description: 'Oldest first', schema: Type.Array(AgentMcpServerDto) }, ...common },
    handler: async ({ deps, auth, params }) => {
      await requireAgent(deps, auth.agencyId, params.agentId);
      return listAgentMcpServers(deps.db, auth.agencyId, params.agentId);
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/ai/agents/:agentId/mcp-servers/:serverId',
    summary: 'Remove an MCP server from an agent',
    tags,
    auth: 'jwt',
    principal: 'user',
    policy: { subject: 'ai.agent', action: 'update' },
    schemas: { params: ServerParams },
    status: 204,
    responses: {
      204: { description: 'Removed' },
      ...common,
      404: { description: '`AI.AGENT_NOT_FOUND`, or `{ statusCode, message }` for an unknown server', schema: CodedOrPlainErrorBody },
    },
    handler: async ({ deps, auth, params }) => {
      await requireAgent(deps, auth.agencyId, params.agentId);
      if (!(await deleteAgentMcpServer(deps.db, auth.agencyId, params.agentId, params.serverId))) {
        throw new HttpError(404, 'MCP server not found');
      }
    },
  }),
];
