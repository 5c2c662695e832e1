import type { DatabasePool } from 'slonik';
import { lockAgentInOrganization } from '../../sql/agents.ts';
import {
  findMcpServerIdsOfAgent,
  replaceToolPermissionsOfAgent,
  type StoredToolPermission,
  type ToolPermission,
} from '../../sql/tool-permissions.ts';
import { recordAgentVersion } from '../../sql/agent-versions.ts';
import { agentNotFound } from '../agents/errors.ts';
import { ValidationError, type ValidationIssue } from '../core/errors.ts';
import { findBuiltinTool, parseProviderKey, type ToolProvider } from './builtins.ts';

/** An element of the body with the provider its key names (null: `mcp:` without a UUID). */
type Named = { tool: ToolPermission; provider: ToolProvider | null };

/**
 * Checks each element against the catalog and the agent's MCP servers (docs/interface.md §7) and
 * returns the rows to store, or the issues at each element's path.
 */
function checkToolSet(tools: Named[], serversOfAgent: Set<string>) {
  const issues: ValidationIssue[] = [];
  const stored: StoredToolPermission[] = [];
  const seen = new Set<string>();
  tools.forEach(({ tool, provider }, index) => {
    const at = (field: string) => ['tools', String(index), field];
    if (seen.has(tool.toolName)) issues.push({ path: at('toolName'), message: 'is given more than once' });
    seen.add(tool.toolName);
    if (provider?.kind !== 'builtin') {
      const serverId = provider?.serverId ?? null;
      if (!serverId || !serversOfAgent.has(serverId)) {
        issues.push({ path: at('providerKey'), message: 'is not an MCP server of this agent' });
      }
      stored.push({ ...tool, mcpServerId: serverId });
      return;
    }
    const builtIn = findBuiltinTool(tool.toolName);
    if (!builtIn) issues.push({ path: at('toolName'), message: 'is not a tool of the catalog' });
    else if (builtIn.providerKey !== tool.providerKey) {
      issues.push({ path: at('providerKey'), message: `must be "${builtIn.providerKey}" for this tool` });
    }
    stored.push({ ...tool, mcpServerId: null });
  });
  return { issues, stored };
}

/**
 * Replaces the agent's whole tool set in one transaction. The agent row is locked first, so
 * concurrent replacements apply one after the other and the last one wins whole. An invalid
 * element rejects the request and leaves the previous set as it was.
 */
export async function replaceAgentTools(
  db: DatabasePool,
  organizationId: string,
  agentId: string,
  tools: ToolPermission[],
  change: { userId: string; now: Date },
): Promise<{ agentId: string; toolCount: number }> {
  return db.transaction(async (tx) => {
    if (!(await lockAgentInOrganization(tx, organizationId, agentId))) throw agentNotFound();
    const named = tools.map((tool) => ({ tool, provider: parseProviderKey(tool.providerKey) }));
    const serverIds = [...new Set(named.flatMap(({ provider }) => (provider?.kind === 'mcp' ? [provider.serverId] : [])))];
    const servers = new Set(serverIds.length ? await findMcpServerIdsOfAgent(tx, organizationId, agentId, serverIds) : []);
    const { issues, stored } = checkToolSet(named, servers);
    if (issues.length) throw new ValidationError(issues);
    await replaceToolPermissionsOfAgent(tx, agentId, stored);
    // A new version of the agent's definition, in this transaction (docs/evaluations.md, "Versions").
    await recordAgentVersion(tx, { organizationId, agentId, note: null, createdBy: change.userId, now: change.now });
    return { agentId, toolCount: stored.length };
  });
}
