import type { CommonQueryMethods } from 'slonik';
import { countUsersUnderLock, findPlanLimitsOfOrganization, sumDocumentBytes } from '../../sql/plan-limits.ts';
import { forgetAllGates } from '../analytics/budget/checker.ts';
import type { AppDeps } from '../core/deps.ts';
import { planLimitReached } from './errors.ts';

/*
 * A business's plan limits (docs/billing.md, "Limits"). Each count is checked in the transaction
 * that adds the thing counted, under a lock its writers share, so concurrent creates stop exactly
 * at the limit: agents under the organization row's lock (countAgentsUnderLock), users under the
 * same lock (countUsersUnderLock), documents under the organization's knowledge lock. The
 * monthly end-user messages are one conditional upsert; the monthly usage cost is the
 * reservation of an enforced budget (reserve_usage, migration 1220).
 */

/** 1 MB of a plan's `maxDocumentsMb`: 1,048,576 bytes (the knowledge limits' MiB). */
export const MB = 1024 * 1024;

/** 409 `PLANS.LIMIT_REACHED` unless one more agent fits the plan; `agents` counted under the organization's lock. */
export async function checkAgentLimit(tx: CommonQueryMethods, organizationId: string, agents: number): Promise<void> {
  const limits = await findPlanLimitsOfOrganization(tx, organizationId);
  if (limits?.maxAgents != null && agents >= limits.maxAgents) throw planLimitReached('maxAgents', limits.maxAgents, agents);
}

/**
 * 409 `PLANS.LIMIT_REACHED` unless one more staff user fits the business's plan. Takes the
 * organization row's lock for the caller's transaction, which must then insert the user: the
 * function an invitation or a registration calls before it adds a user to a business.
 */
export async function checkUserLimit(tx: CommonQueryMethods, organizationId: string): Promise<void> {
  const users = await countUsersUnderLock(tx, organizationId);
  const limits = await findPlanLimitsOfOrganization(tx, organizationId);
  if (limits?.maxUsers != null && users >= limits.maxUsers) throw planLimitReached('maxUsers', limits.maxUsers, users);
}

/**
 * 409 `PLANS.LIMIT_REACHED` unless a document of `bytes` fits the plan's `maxDocumentsMb`; call
 * under the organization's knowledge lock. `value` is the MB stored now, to 2 decimals.
 */
export async function checkDocumentsLimit(tx: CommonQueryMethods, organizationId: string, bytes: number): Promise<void> {
  const limits = await findPlanLimitsOfOrganization(tx, organizationId);
  if (limits?.maxDocumentsMb == null) return;
  const stored = await sumDocumentBytes(tx, organizationId);
  if (stored + bytes > limits.maxDocumentsMb * MB) {
    throw planLimitReached('maxDocumentsMb', limits.maxDocumentsMb, Math.round((stored / MB) * 100) / 100);
  }
}

/** Seconds from `now` to the next UTC month (at least 1). */
export const secondsToNextUtcMonth = (now: Date) =>
  Math.max(1, Math.ceil((Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000));

/**
 * A plan's limits or a business's plan changed: this process's next model call reads the
 * monthly usage limit again (other processes within the budget gate's 2 seconds, docs/billing.md).
 */
export const planLimitsChanged = (deps: Pick<AppDeps, 'db'>) => forgetAllGates(deps.db);
