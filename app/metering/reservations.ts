import { uuidv7 } from 'uuidv7';
import { reserveUsage, settleReservation } from '../../sql/usage-reservations.ts';
import { knownUnenforced, spendChanged } from '../analytics/budget/checker.ts';
import { budgetExceeded } from '../analytics/budget/errors.ts';
import type { AppDeps } from '../core/deps.ts';

/*
 * An enforced budget that holds under concurrency (docs/analytics.md, "Budgets"): every model call
 * reserves its worst-case cost against the month's spend before it is sent (`reserveCall`), and
 * settles to its actual cost once the provider reports it (`settleCall`); the statement that
 * writes the call's usage row releases the reservation (app/metering/record.ts).
 */

export type ReserveDeps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'logger'>;

/**
 * One call to reserve for: whose and which model, and its worst case, asked only when a budget is
 * enforced: the most input tokens the provider may report (a model call's estimate times
 * `INPUT_ESTIMATE_MARGIN`; an embedding's UTF-8 bytes) and its output limit.
 */
export type ReservedCall = {
  organizationId: string;
  modelId: string;
  worstCase: () => { inputTokens: number; outputTokens: number };
};

/**
 * What a model call reserves for its input: twice its o200k estimate (`promptTokens`). The
 * estimate is the real count for OpenAI's current models and within some percent for others'
 * tokenizers; twice covers a provider that counts the same prompt up to twice as many tokens
 * (another tokenizer on an unfavourable text, the provider's own formatting around messages and
 * tools). Why it is enough, and what a provider past it costs: docs/analytics.md, "Budgets".
 */
export const INPUT_ESTIMATE_MARGIN = 2;

/**
 * Reserves a call's worst-case cost. Answers the reservation's id, or null when the organization
 * has no enforced budget (this process read so less than two seconds ago: no query). Throws 402
 * `AI.BUDGET_EXCEEDED` when the reservation would take the month's spend and live reservations
 * past the limit (or they are already at it): the call must not be made.
 */
export async function reserveCall(deps: ReserveDeps, call: ReservedCall): Promise<string | null> {
  if (knownUnenforced(deps.db, call.organizationId)) return null;
  const now = deps.clock();
  const id = uuidv7();
  const worst = call.worstCase();
  const outcome = await reserveUsage(deps.db, {
    id,
    organizationId: call.organizationId,
    modelId: call.modelId,
    inputTokens: worst.inputTokens,
    outputTokens: worst.outputTokens,
    from: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    to: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
    now,
    expiresAt: new Date(now.getTime() + reservationLifetimeMs(deps)),
  });
  if (!outcome.enforced) return null;
  if (!outcome.reserved) {
    // The next turn's gate reads the spend again rather than trusting an older read.
    spendChanged(deps.db, call.organizationId);
    throw budgetExceeded(outcome.spentUsd ?? 0, outcome.limitUsd ?? 0);
  }
  return id;
}

/**
 * How long a reservation holds when nothing settles or releases it (its process died): the
 * longest a turn runs plus one provider wait.
 */
export const reservationLifetimeMs = (deps: Pick<AppDeps, 'config'>) => deps.config.ai.turnTimeoutMs + deps.config.ai.providerTimeoutMs;

/**
 * Settles a reservation to the tokens the provider reported. Never throws: a failed settlement
 * leaves the worst case held until the usage row's write releases it.
 */
export async function settleCall(
  deps: ReserveDeps,
  id: string,
  call: { modelId: string; inputTokens: number; outputTokens: number; cacheReadTokens: number },
): Promise<void> {
  try {
    await settleReservation(deps.db, { id, ...call });
  } catch (error) {
    deps.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'budget reservation not settled');
  }
}
