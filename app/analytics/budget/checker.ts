import type { CommonQueryMethods } from 'slonik';
import {
  claimBudgetAlert,
  findBudget,
  listBudgetAlertRecipients,
  listBudgetedOrganizationIds,
  tryBudgetSweepLock,
} from '../../../sql/usage-budgets.ts';
import type { AppDeps } from '../../core/deps.ts';
import { outboxTransport } from '../../notifications/outbox-transport.ts';
import { alertsFor } from './alerts.ts';
import { knownWithoutBudget, usageWritten } from './enforcement.ts';
import { budgetState, utcMonthOf } from './status.ts';

/** What a budget check needs: the CLI has no app, only these. */
export type BudgetCheckDeps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'logger'>;

/**
 * Checks one organization's budget at `deps.clock()` and queues, through the outbox, the alerts
 * it calls for that were not sent yet this UTC month, one email per alert and recipient. The
 * claim of an alert and its emails commit together. Returns the emails queued.
 */
async function checkBudgetOn(db: CommonQueryMethods, deps: BudgetCheckDeps, organizationId: string): Promise<number> {
  return db.transaction(async (tx) => {
    const budget = await findBudget(tx, organizationId);
    if (budget === null) return 0;
    const now = deps.clock();
    const state = await budgetState(tx, budget, now);
    if (state.spentUsd === 0 && state.status === 'ok') return 0;
    const recipients = await listBudgetAlertRecipients(tx, organizationId);
    const transport = outboxTransport(deps);
    let queued = 0;
    for (const alert of alertsFor(recipients[0]?.organizationName ?? 'Your organization', state)) {
      const claim = { organizationId, month: utcMonthOf(now), kind: alert.kind, spentUsd: state.spentUsd, now };
      if (!(await claimBudgetAlert(tx, claim))) continue;
      for (const recipient of recipients) {
        await transport.send(tx, {
          channel: 'email',
          to: recipient.email,
          template: 'budget-alert',
          subject: alert.subject,
          text: alert.text,
        });
        queued += 1;
      }
    }
    return queued;
  });
}

/** Checks one organization's budget now (see checkBudgetOn). */
export const checkBudget = (deps: BudgetCheckDeps, organizationId: string) => checkBudgetOn(deps.db, deps, organizationId);

async function checkAfterWrite(deps: BudgetCheckDeps, organizationId: string): Promise<void> {
  try {
    // Most organizations have no budget: one read, no transaction (checkBudgetOn reads it again
    // inside), and none when the turn's own budget gate has just read that there is none (a budget
    // made meanwhile by another process is checked by the next sweep).
    if (knownWithoutBudget(deps.db, organizationId)) return;
    if ((await findBudget(deps.db, organizationId)) === null) return;
    await checkBudget(deps, organizationId);
  } catch (error) {
    deps.logger.warn({ err: error, organizationId }, 'budget check failed; the next sweep retries');
  }
}

type Checks = { running: Promise<void>; queued?: Promise<void> };
/** Per pool and organization: the check running, and the one queued behind it. */
const checksByPool = new WeakMap<object, Map<string, Checks>>();

/**
 * Call after every write of an organization's usage (events, OTLP, chat, import): an alert
 * leaves with the write that caused it. Writes that finish while a check of their organization
 * runs share one check that starts after it (it sees all of them), so concurrent batches of one
 * organization do not each run their own. Never throws: the usage is already stored, and the
 * once-a-minute sweep retries what failed here.
 */
export function afterUsageWritten(deps: BudgetCheckDeps, organizationId: string): Promise<void> {
  usageWritten(deps.db, organizationId);
  const checks = checksByPool.get(deps.db) ?? new Map<string, Checks>();
  checksByPool.set(deps.db, checks);
  const current = checks.get(organizationId);
  if (current?.queued) return current.queued;
  const start = (): Promise<void> => {
    const running = checkAfterWrite(deps, organizationId).finally(() => {
      // A queued check replaces this entry when it starts; until then writes still join it.
      const entry = checks.get(organizationId);
      if (entry?.running === running && entry.queued === undefined) checks.delete(organizationId);
    });
    return running;
  };
  if (current === undefined) {
    const running = start();
    checks.set(organizationId, { running });
    return running;
  }
  const queued = current.running.then(() => {
    const next = start();
    checks.set(organizationId, { running: next });
    return next;
  });
  current.queued = queued;
  return queued;
}

/**
 * Checks every budget, in one transaction that holds an advisory lock: one sweep at a time
 * across every process on the database (a process that finds the lock taken skips its turn).
 * Returns the emails queued, or undefined when another sweep was running.
 */
export async function sweepBudgets(deps: BudgetCheckDeps): Promise<number | undefined> {
  return deps.db.transaction(async (tx) => {
    if (!(await tryBudgetSweepLock(tx))) return undefined;
    let queued = 0;
    for (const organizationId of await listBudgetedOrganizationIds(tx)) queued += await checkBudgetOn(tx, deps, organizationId);
    return queued;
  });
}
