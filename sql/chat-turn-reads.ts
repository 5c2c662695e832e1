import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { agentServerConnectionsJson, AgentServerConnectionsJson } from './agent-mcp-server-connections.ts';
import { conversationHistoryJson, ConversationHistoryJson, isEndUserScope, type ConversationScope } from './chat-conversations.ts';
import { claimTurnWrite, type TurnClaim } from './chat-turns.ts';
import { providerKeyJson, ProviderKeyJson } from './provider-keys.ts';
import { offerableToolsJson, OfferableToolsJson } from './tool-permissions.ts';

/*
 * What a chat turn reads before its model call, in one statement with its claim (docs/chat.md,
 * "Decisions"): each domain's own read as a JSON column (its SQL and row schema beside its row form
 * in its module), so the turn waits on one round trip instead of five.
 */

const TurnReadsRow = z.strictObject({
  key: ProviderKeyJson,
  tools: OfferableToolsJson,
  servers: AgentServerConnectionsJson,
  history: ConversationHistoryJson,
  claimed: z.boolean().nullable(),
});
export type TurnReadsRow = z.infer<typeof TurnReadsRow>;

/**
 * The organization's provider key (`findProviderKey`), the tools the agent offers this owner
 * (`listOfferableToolsForUser`: an end user has no overrides), the agent's MCP servers
 * (`listAgentServerConnections`), when `history` is given the conversation with that client id
 * (`findConversationHistory`; null when absent or not asked), and when `claim` is given whether the
 * turn was claimed (`claimTurn`, a data-modifying CTE: it commits with the statement; null when not
 * asked).
 */
export function findTurnReads(
  db: CommonQueryMethods,
  scope: ConversationScope,
  asked: {
    history: { clientId: string; maxBytes: number; messageId?: string | undefined } | null;
    claim: TurnClaim | null;
  },
) {
  const userId = isEndUserScope(scope) ? null : scope.userId;
  const { history, claim } = asked;
  return db.one(sql.type(TurnReadsRow)`
    ${claim ? sql.fragment`WITH claimed AS (${claimTurnWrite(scope, claim)})` : sql.fragment``}
    SELECT ${providerKeyJson(scope.organizationId)} AS key,
           ${offerableToolsJson(scope.agentId, userId)} AS tools,
           ${agentServerConnectionsJson({ organizationId: scope.organizationId, agentId: scope.agentId })} AS servers,
           ${history ? conversationHistoryJson(scope, history.clientId, history) : sql.fragment`NULL::json`} AS history,
           ${claim ? sql.fragment`EXISTS (SELECT 1 FROM claimed)` : sql.fragment`NULL::boolean`} AS claimed`);
}
