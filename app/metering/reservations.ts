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
 * enforced: its input tokens (an estimate, `promptTokens`) and its output limit.
 */
export type ReservedCall = {
  organizationId: string;
  modelId: string;
  worstCase: () => { inputTokens: number; outputTokens: number };
};

/** Input token estimates are within 10 % of the provider's count: the reservation adds that much. */
export const INPUT_ESTIMATE_MARGIN = 1.1;

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
    inputTokens: Math.ceil(worst.inputTokens * INPUT_ESTIMATE_MARGIN),
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
