import { jsonSchema, tool, type ToolSet } from 'ai';
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { AppDeps } from '../core/deps.ts';
import type { ServerConnectionRow } from '../../sql/agent-mcp-server-connections.ts';
import { listingOf, type DiscoveredTool } from '../mcp-client/tool-discovery.ts';
import { findBuiltinTool } from '../tools/builtins.ts';
import type { OfferedTool } from '../tools/resolution.ts';
import type { McpToolExecutor } from './mcp-executor.ts';
import { asToolFailure } from './stream-errors.ts';

/** Who runs the MCP tools (`tools/call`); built-in tools run their own executor (app/tools/builtins.ts). */
export type ToolRunners = { mcp: McpToolExecutor };
/**
 * `approvedCallIds`: calls approved in this request, which run whatever the tool's level is now.
 * `servers`: the agent's MCP servers (`listAgentServerConnections`, read with the turn's other reads).
 */
type Scope = {
  agencyId: string;
  agentId: string;
  userId: string;
  signal: AbortSignal;
  approvedCallIds: ReadonlySet<string>;
  servers: readonly ServerConnectionRow[];
};

/**
 * The tool map of one turn: exactly the offered tools (the agent's non-blocked ones, see
 * offeredToolsOf), keyed by tool name. MCP tools carry the input schema their server lists
 * now (through the discovery cache); a tool the server no longer lists, or a server that cannot
 * be listed within the MCP client's timeout, is left out. A built-in tool this deployment does
 * not run (its `availability`, app/tools/builtins.ts) is left out too: it stays in the agent's
 * set, and the catalog says why it is unavailable. `needsApproval` mirrors
 * `requiresApproval` (needs_approval without this user's override), and holds for a call the
 * user approved in this request.
 */
export async function buildToolSet(
  deps: AppDeps,
  scope: Scope,
  offered: ReadonlyMap<string, OfferedTool>,
  runners: ToolRunners,
): Promise<ToolSet> {
  const listed = await listServers(deps, scope, offered);
  const tools: ToolSet = {};
  for (const entry of offered.values()) {
    const needsApproval = (_input: unknown, { toolCallId }: { toolCallId: string }) =>
      entry.requiresApproval || scope.approvedCallIds.has(toolCallId);
    const { provider } = entry;
    // An `mcp:` key without a UUID names no server, so it offers nothing.
    if (provider === null) continue;
    if (provider.kind === 'mcp') {
      const { serverId } = provider;
      const found = listed.get(serverId)?.find((candidate) => candidate.name === entry.toolName);
      if (!found) continue;
      tools[entry.toolName] = tool({
        description: found.description ?? found.title ?? entry.toolName,
        inputSchema: jsonSchema(found.inputSchema as JSONSchema7),
        needsApproval,
        execute: (input: unknown, { abortSignal }) =>
          asToolFailure(() =>
            runners.mcp(deps, { agencyId: scope.agencyId, serverId, toolName: entry.toolName, input, signal: abortSignal ?? scope.signal }),
          ),
      });
      continue;
    }
    const builtin = findBuiltinTool(entry.toolName);
    const run = builtin?.availability(deps.config).available ? builtin.execute(deps.config) : undefined;
    if (!builtin || !run) continue;
    const { agencyId, agentId, userId } = scope;
    tools[entry.toolName] = tool({
      // The catalog's description, read once with the offered set (absent only for a tool stored under another provider).
      description: entry.description ?? builtin.description,
      inputSchema: jsonSchema<Record<string, unknown>>(builtin.inputSchema),
      needsApproval,
      execute: (input: Record<string, unknown>, { abortSignal }) =>
        asToolFailure(() => run({ deps, scope: { agencyId, agentId, userId }, input, signal: abortSignal ?? scope.signal })),
    });
  }
  return tools;
}

/**
 * The tools each MCP server of the offered set lists, in parallel (from the tools cache when it
 * holds them: no query). A server that fails is logged and offers nothing, and so does one that is no
 * longer the agent's.
 */
async function listServers(deps: AppDeps, scope: Scope, offered: ReadonlyMap<string, OfferedTool>): Promise<Map<string, DiscoveredTool[]>> {
  const serverIds = new Set([...offered.values()].flatMap(({ provider }) => (provider?.kind === 'mcp' ? [provider.serverId] : [])));
  const listed = await Promise.all(
    [...serverIds].map(async (serverId) => {
      const server = scope.servers.find((candidate) => candidate.id === serverId);
      if (!server) return [serverId, []] as [string, DiscoveredTool[]];
      try {
        return [serverId, (await listingOf(deps, server)).tools] as [string, DiscoveredTool[]];
      } catch (error) {
        deps.logger.info({ serverId, err: error instanceof Error ? error.message : String(error) }, 'chat: MCP server tools unavailable');
        return [serverId, []] as [string, DiscoveredTool[]];
      }
    }),
  );
  return new Map(listed);
}
