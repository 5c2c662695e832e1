import type { CommonQueryMethods } from 'slonik';
import { listOfferableToolsForUser, type OfferableToolRow, type OfferedStatus } from '../../sql/tool-permissions.ts';
import { findBuiltinTool, parseProviderKey, type ToolProvider } from './builtins.ts';

/** A tool offered to the model for one user's conversation with one agent. */
export type OfferedTool = {
  toolName: string;
  providerKey: string;
  /** What `providerKey` names (null: an `mcp:` key without a UUID, which PUT never stores). */
  provider: ToolProvider | null;
  permissionStatus: OfferedStatus;
  /** True: a call pauses in `approval-requested` until the user answers. */
  requiresApproval: boolean;
  /** The catalog's description for a built-in tool; null for an MCP server's tool. */
  description: string | null;
};

const describe = (toolName: string, provider: ToolProvider | null): string | null => {
  const tool = findBuiltinTool(toolName);
  return tool && provider?.kind === 'builtin' && tool.providerKey === provider.provider ? tool.description : null;
};

/**
 * The tool map the chat stream offers the model for (agent, user), per the interface's runtime
 * meaning of permissionStatus:
 * - `blocked` tools and tools absent from the agent's set are left out (the model never sees them);
 * - `always_allow` tools run without a prompt;
 * - `needs_approval` tools require approval, unless this user has an override for this agent+tool
 *   (`userId` null, an end user's turn: overrides never apply).
 * `agentId` is an agent the acting organization has: both callers are routes whose scope found it
 * (app/agents/scope.ts), the chat stream and `GET .../tools/effective`.
 */
export async function offeredToolsOf(db: CommonQueryMethods, agentId: string, userId: string | null): Promise<Map<string, OfferedTool>> {
  return offeredToolsFrom(await listOfferableToolsForUser(db, agentId, userId));
}

/** `offeredToolsOf` from the rows `listOfferableToolsForUser` answers (read with a chat turn's other reads: sql/chat-turn-reads.ts). */
export function offeredToolsFrom(rows: readonly OfferableToolRow[]): Map<string, OfferedTool> {
  return new Map(
    rows.map((row) => {
      const provider = parseProviderKey(row.providerKey);
      const tool: OfferedTool = {
        toolName: row.toolName,
        providerKey: row.providerKey,
        provider,
        permissionStatus: row.permissionStatus,
        requiresApproval: row.permissionStatus === 'needs_approval' && !row.hasOverride,
        description: describe(row.toolName, provider),
      };
      return [row.toolName, tool];
    }),
  );
}
