import { setTimeout as delay } from 'node:timers/promises';
import { findAgentInOrganization } from '../../../sql/agents.ts';
import { listAgentServerConnections } from '../../../sql/agent-mcp-server-connections.ts';
import { findChannelOfAgent } from '../../../sql/channels.ts';
import { listNewestMessages } from '../../../sql/chat-conversations.ts';
import { findProviderKey } from '../../../sql/provider-keys.ts';
import { findApprovalStates, findEndUserConversation } from '../../../sql/staff-approvals.ts';
import type { AppDeps } from '../../core/deps.ts';
import { CodedError } from '../../core/errors.ts';
import { offeredToolsOf } from '../../tools/resolution.ts';
import { admitTurn, historyBytesFor, type ApprovalAnswer } from '../admission.ts';
import { turnStream } from '../chat-turn.ts';
import { prepareTurn } from '../history.ts';
import { chatModelWith } from '../provider.ts';
import { chatTurns } from '../running-turns.ts';
import { claimConversation } from '../turn-claim.ts';

/** How long a continuation waits, at most, for a turn of its conversation that still runs to end. */
const CLAIM_PATIENCE_MS = 30_000;
const CLAIM_RETRY_MS = 500;

/**
 * Goes on with an end user's conversation once the staff answered its approvals (or they
 * expired): when no approval of its last answer is pending any more, one turn runs on the server,
 * as durable as any (app/chat/running-turns.ts): the approved tools run, the denied ones end
 * `output-denied` with their reason, and the model answers. The end user follows it with the
 * resume GET, or reads it in the conversation. The same checks as a chat request apply (the
 * agent in use, the price list, the budget); a turn that may not run is logged and leaves the
 * answers recorded. Never throws.
 */
export async function continueConversation(deps: AppDeps, conversationId: string): Promise<void> {
  try {
    await continueOnce(deps, conversationId);
  } catch (error) {
    const cause = error instanceof CodedError ? error.errorCode : error instanceof Error ? error.message : String(error);
    deps.logger.warn({ conversationId, cause }, 'end user conversation not continued after its approvals');
  }
}

async function continueOnce(deps: AppDeps, conversationId: string): Promise<void> {
  const conversation = await findEndUserConversation(deps.db, conversationId);
  if (!conversation) return;
  const scope = { organizationId: conversation.organizationId, agentId: conversation.agentId, endUserId: conversation.endUserId };
  const [agent, channel] = await Promise.all([
    findAgentInOrganization(deps.db, scope.organizationId, scope.agentId),
    findChannelOfAgent(deps.db, scope.agentId),
  ]);
  if (!agent) return;
  const answers = await answersToGoOnWith(deps, conversationId);
  if (!answers) return;
  const claim = await claimWhenFree(deps, scope, conversation.clientId);
  const turns = chatTurns(deps);
  const turn = turns.begin(claim);
  const [storedKey, offered, servers] = await Promise.all([
    findProviderKey(deps.db, scope.organizationId),
    offeredToolsOf(deps.db, agent.id, null),
    listAgentServerConnections(deps.db, { organizationId: scope.organizationId, agentId: agent.id }),
  ]);
  const model = chatModelWith(deps, scope.organizationId, agent.modelId ?? deps.config.ai.defaultModel, turn.signal, storedKey);
  try {
    await admitTurn(deps, { organizationId: scope.organizationId, model, storedMessages: null });
    const prepared = await prepareTurn(deps, scope, conversation.clientId, { kind: 'answered', answers }, null);
    const stream = await turnStream(deps, {
      scope,
      agent,
      model,
      signal: turn.signal,
      prepared,
      offered,
      servers,
      approvals: channel?.approvals === 'end_user' ? 'owner' : 'staff',
    });
    // Runs to its end whoever listens (the resume GET reads its tape).
    void turn.run(stream).return(undefined);
  } catch (error) {
    await turn.abandon().catch(() => {});
    await model.close();
    throw error;
  }
}

/** The answers of the last assistant message's approvals, once none is pending; null while one is, or when there is none. */
async function answersToGoOnWith(deps: AppDeps, conversationId: string): Promise<ApprovalAnswer[] | null> {
  const last = (await listNewestMessages(deps.db, conversationId, historyBytesFor(deps.config))).at(-1);
  if (last?.role !== 'assistant') return null;
  const ids = last.parts.flatMap((part) => {
    const approval = part.approval as { id?: unknown } | undefined;
    return part.state === 'approval-requested' && typeof approval?.id === 'string' ? [approval.id] : [];
  });
  if (ids.length === 0) return null;
  const states = await findApprovalStates(deps.db, ids);
  if (states.length !== ids.length || states.some((state) => !state.answered)) return null;
  return states.map((state) => ({
    approvalId: state.id,
    approved: state.approved ?? false,
    ...(state.reason === null ? {} : { reason: state.reason }),
  }));
}

/** Claims the conversation for the continuation, waiting (bounded) for a turn of it that still runs. */
async function claimWhenFree(deps: AppDeps, scope: { organizationId: string; agentId: string; endUserId: string }, clientId: string) {
  const deadline = performance.now() + CLAIM_PATIENCE_MS;
  for (;;) {
    try {
      const claim = await claimConversation(deps, scope, clientId, null);
      if (claim.kind === 'new') return claim.turnId;
    } catch (error) {
      if (!(error instanceof CodedError) || performance.now() > deadline) throw error;
    }
    await delay(CLAIM_RETRY_MS);
  }
}
