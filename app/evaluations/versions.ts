import type { DatabasePool } from 'slonik';
import { findAgentVersion, recordAgentVersion } from '../../sql/agent-versions.ts';
import { lockAgentInOrganization, updateAgent, type Agent } from '../../sql/agents.ts';
import { findMcpServerIdsOfAgent, replaceToolPermissionsOfAgent, type StoredToolPermission } from '../../sql/tool-permissions.ts';
import { agentNotFound } from '../agents/errors.ts';
import { findBuiltinTool, parseProviderKey } from '../tools/builtins.ts';
import { versionNotFound } from './errors.ts';

/**
 * Restores version `version` of the agent (docs/evaluations.md, "Versions"): its fields and its
 * tool set, in one transaction holding the agent's lock, recorded as a new version equal to it.
 * A tool of that version whose MCP server the agent no longer has (or a built-in the catalog no
 * longer holds) is left out: a tool set names only what exists.
 */
export async function restoreVersion(
  db: DatabasePool,
  change: { organizationId: string; agentId: string; version: number; note: string | undefined; userId: string; now: Date },
): Promise<Agent> {
  return db.transaction(async (tx) => {
    if (!(await lockAgentInOrganization(tx, change.organizationId, change.agentId))) throw agentNotFound();
    const found = await findAgentVersion(tx, change.agentId, change.version);
    if (!found) throw versionNotFound();
    const { tools, ...fields } = found.definition;
    const serverIds = tools.flatMap((tool) => {
      const provider = parseProviderKey(tool.providerKey);
      return provider?.kind === 'mcp' ? [provider.serverId] : [];
    });
    const servers = new Set(
      serverIds.length > 0 ? await findMcpServerIdsOfAgent(tx, change.organizationId, change.agentId, serverIds) : [],
    );
    const kept = tools.flatMap((tool): StoredToolPermission[] => {
      const provider = parseProviderKey(tool.providerKey);
      if (provider?.kind === 'mcp') return servers.has(provider.serverId) ? [{ ...tool, mcpServerId: provider.serverId }] : [];
      return findBuiltinTool(tool.toolName)?.providerKey === tool.providerKey ? [{ ...tool, mcpServerId: null }] : [];
    });
    await replaceToolPermissionsOfAgent(tx, change.agentId, kept);
    const agent = await updateAgent(tx, change.organizationId, change.agentId, fields);
    if (!agent) throw agentNotFound();
    await recordAgentVersion(tx, {
      organizationId: change.organizationId,
      agentId: change.agentId,
      note: change.note ?? `Restored version ${change.version}`,
      createdBy: change.userId,
      now: change.now,
      always: true,
    });
    return agent;
  });
}
