import type { FragmentSqlToken } from 'slonik';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { isEndUserScope, type ConversationScope } from '../../sql/chat-conversations.ts';
import { insertUsageEvents } from '../../sql/usage-events.ts';
import { releaseReservations } from '../../sql/usage-reservations.ts';
import type { ActionType, UsageSource } from '../../sql/usage-window.ts';
import { afterUsageWritten, type BudgetCheckDeps } from '../analytics/budget/checker.ts';
import type { MeteredCall } from './meter.ts';

/*
 * The one way a model call of the service is recorded (docs/analytics.md, "What writes each
 * action type"): its usage row, written through `insertUsageEvents`, then the organization's
 * budget check.
 */

/** Whose calls they are and what for: every row of one `recordModelCalls` shares it. */
export type CallAccount = {
  organizationId: string;
  agentId: string | null;
  userId: string | null;
  /** The end user whose turn made the call (the web channel), else null. */
  endUserId: string | null;
  modelId: string;
  source: UsageSource;
  actionType: ActionType;
  /** Stored on every row (`{ evaluation: true }` for an evaluation run's calls); absent: none. */
  metadata?: Record<string, unknown>;
};

/** Whose calls a conversation's turn makes: its organization, agent and staff user or end user. */
export const accountOf = (scope: ConversationScope) => ({
  organizationId: scope.organizationId,
  agentId: scope.agentId,
  userId: isEndUserScope(scope) ? null : scope.userId,
  endUserId: isEndUserScope(scope) ? scope.endUserId : null,
});

/**
 * Writes one usage row per call (priced from the price list as it is written, like every usage
 * row) and, in the same statement, releases the calls' budget reservations and runs `alongside`
 * (a chat turn's answer); then checks the organization's budget (alerts and `enforce`). A row's
 * time is the call's end, never before `notBefore` (a turn's start).
 */
export async function recordModelCalls(
  deps: BudgetCheckDeps,
  account: CallAccount,
  calls: readonly MeteredCall[],
  options: { reservations?: readonly string[]; alongside?: FragmentSqlToken; notBefore?: Date } = {},
): Promise<void> {
  const reservations = options.reservations ?? [];
  const alongside = [
    ...(options.alongside ? [options.alongside] : []),
    ...(reservations.length > 0 ? [releaseReservations(reservations)] : []),
  ];
  const rows = calls.map((call) => ({
    id: uuidv7(),
    organizationId: account.organizationId,
    agentId: account.agentId,
    userId: account.userId,
    endUserId: account.endUserId,
    modelId: account.modelId,
    actionType: account.actionType,
    source: account.source,
    inputTokens: call.inputTokens,
    cacheReadTokens: call.cacheReadTokens,
    outputTokens: call.outputTokens,
    costUsd: null,
    latencyMs: call.latencyMs,
    ...(account.metadata ? { metadata: account.metadata } : {}),
    createdAt: options.notBefore && call.finishedAt.getTime() < options.notBefore.getTime() ? options.notBefore : call.finishedAt,
  }));
  if (rows.length === 0 && alongside.length === 0) return;
  const startedAt = performance.now();
  const { costUsd } = await insertUsageEvents(
    deps.db,
    rows,
    alongside.length > 0 ? sql.fragment`${sql.join(alongside, sql.fragment`, `)}` : undefined,
  );
  if (rows.length > 0) await afterUsageWritten(deps, account.organizationId, { costUsd, startedAt });
}
