import { findAgentInOrganization } from '../../../sql/agents.ts';
import { findChannelOfAgent } from '../../../sql/channels.ts';
import { listNewestMessages } from '../../../sql/chat-conversations.ts';
import { findBlockingTurn } from '../../../sql/chat-turns.ts';
import { findApprovalStates, findEndUserConversation } from '../../../sql/staff-approvals.ts';
import type { AppDeps } from '../../core/deps.ts';
import { CodedError } from '../../core/errors.ts';
import { historyBytesFor, type ApprovalAnswer } from '../admission.ts';
import { prepareTurn } from '../history.ts';
import { chatTurns } from '../running-turns.ts';
import { claimConversation } from '../turn-claim.ts';
import { admitTurnSetup, runTurn, startTurnReads, type TurnSetup } from '../turn-setup.ts';

/** How long a continuation waits, at most, for a turn of its conversation that still runs to end. */
const CLAIM_PATIENCE_MS = 30_000;

/**
 * Goes on with an end user's conversation once the staff answered its approvals (or they
 * expired): when no approval of its last answer is pending any more, one turn runs on the server,
 * as durable as any (app/chat/running-turns.ts), through the same setup as a chat request
 * (app/chat/turn-setup.ts): the approved tools run, the denied ones end `output-denied` with their
 * reason, and the model answers. The end user follows it with the resume GET, or reads it in the
 * conversation. The same checks as a chat request apply (the agent in use, the price list, the
 * budget, the guardrails on the message it answers: a refused one is answered with the refusal); a
 * turn that may not run is logged and leaves the answers recorded. It belongs to no request (the
 * staff answer's POST does not wait for it). Never throws.
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
  const turns = chatTurns(deps);
  const turn = turns.begin(await claimWhenFree(deps, scope, conversation.clientId));
  let setup: TurnSetup | undefined;
  try {
    setup = await admitTurnSetup(deps, startTurnReads(deps, scope, agent), { scope, agent, signal: turn.signal, storedMessages: null });
    const prepared = await prepareTurn(deps, scope, conversation.clientId, { kind: 'answered', answers }, null);
    // The message this turn answers is judged again: a refused one never reaches the agent's model (app/chat/judge.ts).
    const events = await runTurn(deps, turn, setup, {
      scope,
      agent,
      prepared,
      isNew: false,
      approvals: channel?.approvals === 'end_user' ? 'owner' : 'staff',
    });
    // Runs to its end whoever listens (the resume GET reads its tape).
    void events.return(undefined);
  } catch (error) {
    await turn.abandon().catch(() => {});
    await setup?.model.close();
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

/**
 * Claims the conversation for the continuation. A turn of it that still runs is waited for, once,
 * until it ends (told by its instance: app/chat/running-turns.ts, `ended`), at most
 * `CLAIM_PATIENCE_MS`; then the claim is made again, and its refusal thrown.
 */
async function claimWhenFree(deps: AppDeps, scope: { organizationId: string; agentId: string; endUserId: string }, clientId: string) {
  try {
    const claim = await claimConversation(deps, scope, clientId, null);
    if (claim.kind === 'new') return claim.turnId;
  } catch (error) {
    if (!(error instanceof CodedError)) throw error;
  }
  const running = await findBlockingTurn(deps.db, scope, clientId, null);
  if (running?.running) await chatTurns(deps).ended(running.id, CLAIM_PATIENCE_MS);
  const claim = await claimConversation(deps, scope, clientId, null);
  if (claim.kind !== 'new') throw new Error('the conversation has a running turn');
  return claim.turnId;
}
