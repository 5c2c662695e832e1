import type { CommonQueryMethods } from 'slonik';
import {
  claimBudgetAlert,
  findBudget,
  listBudgetAlertRecipients,
  listBudgetedOrganizationIds,
  tryBudgetSweepLock,
  findUsageLimits,
} from '../../../sql/usage-budgets.ts';
import { deleteExpiredReservations } from '../../../sql/usage-reservations.ts';
import type { AppDeps } from '../../core/deps.ts';
import { outboxTransport } from '../../notifications/outbox-transport.ts';
import { alertsFor } from './alerts.ts';
import { budgetExceeded } from './errors.ts';
import { budgetState, utcMonthOf } from './status.ts';

/*
 * The checks of an organization's budget: after every usage write, the alerts it calls for
 * (`afterUsageWritten`, and `sweepBudgets` once a minute); before a chat turn, the enforced
 * limit (`checkBudgetBeforeTurn`, from a read shared for `SPEND_MAX_AGE_MS`).
 */

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
          organizationId,
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
 * Call after every write of an organization's usage (events, OTLP, chat, import), with the write's
 * cost when it is known (`usageWritten`): an alert leaves with the write that caused it. Writes that finish while a check of their organization
 * runs share one check that starts after it (it sees all of them), so concurrent batches of one
 * organization do not each run their own. Never throws: the usage is already stored, and the
 * once-a-minute sweep retries what failed here.
 */
export function afterUsageWritten(deps: BudgetCheckDeps, organizationId: string, write?: UsageWrite): Promise<void> {
  usageWritten(deps.db, organizationId, write);
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
    // Reservations whose writer died (app/metering/reservations.ts) stop holding budget at their expiry; they go here.
    await deleteExpiredReservations(tx, deps.clock());
    let queued = 0;
    for (const organizationId of await listBudgetedOrganizationIds(tx)) queued += await checkBudgetOn(tx, deps, organizationId);
    return queued;
  });
}

/**
 * How old the spend a new chat turn is checked against may be (docs/chat.md, "Budgets that stop
 * spend"). Within one process a usage write or a budget change forgets it at once; another
 * process's write is seen within this time.
 */
export const SPEND_MAX_AGE_MS = 2_000;

/** What the check reads with. */
type GateDeps = Pick<AppDeps, 'db' | 'clock'>;

/** What a turn is checked against: the budget's limit when it is enforced, and the month's spend. */
type Gate = { limitUsd: number; spentUsd: number } | null;
/**
 * `budget`: what the read found, once it has: no budget, one not enforced (both a null gate, which
 * no spend changes) or an enforced one.
 */
type Entry = {
  gate: Promise<Gate>;
  readAt: number;
  budget?: 'none' | 'unenforced' | 'enforced';
  planLimited?: boolean;
  /** The gate once read (and the cost of this process's usage writes since added to its spend), and when it was. */
  value?: Gate;
  answeredAt?: number;
};

/** A usage write of this process: what its rows cost and when its statement was sent (`performance.now()`). */
export type UsageWrite = { costUsd: number; startedAt: number };

/** Per pool (a test app, the service), per organization: the last read and when it started. */
const gatesByPool = new WeakMap<object, Map<string, Entry>>();
/** Most organizations remembered per pool; the oldest read is forgotten first. */
const MAX_ENTRIES = 10_000;

async function readGate(deps: GateDeps, organizationId: string, entry: Entry): Promise<Gate> {
  const now = deps.clock();
  // A whole UTC month is whole days: the day rollup alone answers its spend (one index range, no raw rows).
  const month = {
    from: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    to: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  };
  const limits = await findUsageLimits(deps.db, organizationId, month);
  entry.budget = limits.budgetEnforced === null ? 'none' : limits.budgetEnforced ? 'enforced' : 'unenforced';
  // A plan's monthlyUsageUsd holds like an enforced budget; the lower limit of the two applies.
  entry.planLimited = limits.planLimitUsd !== null;
  const held = [...(limits.budgetEnforced ? [limits.budgetLimitUsd!] : []), ...(limits.planLimitUsd === null ? [] : [limits.planLimitUsd])];
  entry.value = held.length === 0 ? null : { limitUsd: Math.min(...held), spentUsd: limits.spentUsd ?? 0 };
  entry.answeredAt = performance.now();
  return entry.value;
}

/**
 * Refuses a new chat turn with 402 `AI.BUDGET_EXCEEDED` when the organization's budget is
 * enforced and the month's spend is at or over its limit. The budget and spend are read at most
 * once per `SPEND_MAX_AGE_MS` per organization and process (concurrent turns share one read), so
 * a warm turn costs no query. A read that started before the last local change of spend or budget
 * is never used: `spendChanged` drops it, and a check that was waiting on it reads again.
 */
export async function checkBudgetBeforeTurn(deps: GateDeps, organizationId: string): Promise<void> {
  const entries = gatesByPool.get(deps.db) ?? new Map<string, Entry>();
  gatesByPool.set(deps.db, entries);
  // Bounded: under a stream of local writes the third read is used whatever happens meanwhile.
  for (let attempt = 1; ; attempt += 1) {
    let entry = entries.get(organizationId);
    if (!entry || performance.now() - entry.readAt > SPEND_MAX_AGE_MS) {
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      const read: Entry = { gate: Promise.resolve(null), readAt: performance.now() };
      read.gate = readGate(deps, organizationId, read);
      entry = read;
      entries.delete(organizationId);
      entries.set(organizationId, entry);
      // A failed read is not kept: the next turn reads again (this one answers the failure).
      entry.gate.catch(() => {
        if (entries.get(organizationId) === entry) entries.delete(organizationId);
      });
    }
    const gate = await entry.gate;
    // Spend or budget changed in this process while the read ran: its answer may be stale.
    if (entries.get(organizationId) !== entry && attempt < 3) continue;
    if (gate !== null && gate.spentUsd >= gate.limitUsd) throw budgetExceeded(gate.spentUsd, gate.limitUsd);
    return;
  }
}

/**
 * Forgets what `checkBudgetBeforeTurn` read for the organization: call after the organization's
 * usage was written (chat, events, OTLP) and after its budget changed, so this process's next turn
 * reads the stored spend.
 */
export function spendChanged(pool: object, organizationId: string): void {
  gatesByPool.get(pool)?.delete(organizationId);
}

/**
 * After the organization's usage was written in this process: a read that found no enforced budget
 * is kept (spend alone cannot turn that answer into a refusal; a budget change calls
 * `spendChanged`), so an organization without one keeps its one read per `SPEND_MAX_AGE_MS` while
 * its turns write usage. A read that found a limit gets the cost of a `write` sent after it
 * answered added to its spend (its snapshot cannot hold that write): an enforced budget's turns so
 * read the stored spend once per `SPEND_MAX_AGE_MS`, not before every turn. Any other read (still
 * running, or answered after the write was sent: it may or may not hold it) or a write of unknown
 * cost forgets it: the next turn reads the stored spend.
 */
export function usageWritten(pool: object, organizationId: string, write?: UsageWrite): void {
  const entries = gatesByPool.get(pool);
  const entry = entries?.get(organizationId);
  if (!entry) return;
  if ((entry.budget === 'none' || entry.budget === 'unenforced') && !entry.planLimited) return;
  if (write && entry.value && entry.answeredAt !== undefined && entry.answeredAt < write.startedAt) {
    // To the 10 decimals costs are stored with: float sums drift (0.6 + 0.3 + 0.1 < 1).
    entry.value = { ...entry.value, spentUsd: Number((entry.value.spentUsd + write.costUsd).toFixed(10)) };
    entry.gate = Promise.resolve(entry.value);
    return;
  }
  entries!.delete(organizationId);
}

/**
 * Whether this process read, less than `SPEND_MAX_AGE_MS` ago, that the organization has no
 * enforced budget (none, or one that only alerts): its model calls then reserve nothing
 * (app/metering/reservations.ts). A budget made enforced here is seen at once, elsewhere within
 * that time.
 */
export function knownUnenforced(pool: object, organizationId: string): boolean {
  const entry = gatesByPool.get(pool)?.get(organizationId);
  return (
    (entry?.budget === 'none' || entry?.budget === 'unenforced') &&
    !entry.planLimited &&
    performance.now() - entry.readAt <= SPEND_MAX_AGE_MS
  );
}

/**
 * Whether this process read, less than `SPEND_MAX_AGE_MS` ago, that the organization has no
 * budget (a budget change here forgets it at once, another process's within that time). The
 * check after a usage write (`afterUsageWritten`, above) then reads nothing: a chat turn's own write no longer
 * costs a budget read before its `[DONE]`.
 */
export function knownWithoutBudget(pool: object, organizationId: string): boolean {
  const entry = gatesByPool.get(pool)?.get(organizationId);
  return entry?.budget === 'none' && performance.now() - entry.readAt <= SPEND_MAX_AGE_MS;
}

/** Forgets every read of this pool (a plan's monthly usage limit changed, for any number of businesses). */
export function forgetAllGates(pool: object): void {
  gatesByPool.get(pool)?.clear();
}
