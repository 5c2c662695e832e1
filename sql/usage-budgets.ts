import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { IdRow, LockedRow } from './rows.ts';

const Budget = z.strictObject({
  organizationId: z.string(),
  monthlyLimitUsd: z.coerce.number(),
  alertThresholdsPct: z.array(z.number().int()),
  /** New chat turns are refused while the month's spend is at or over the limit. */
  enforce: z.boolean(),
});
export type Budget = z.infer<typeof Budget>;

const budgetColumns = sql.fragment`
  organization_id AS "organizationId", monthly_limit_usd::float8 AS "monthlyLimitUsd", alert_thresholds_pct AS "alertThresholdsPct",
  enforce`;

export function upsertBudget(db: CommonQueryMethods, budget: Budget & { now: Date }) {
  return db.one(sql.type(Budget)`
    INSERT INTO usage_budgets (organization_id, monthly_limit_usd, alert_thresholds_pct, enforce, updated_at)
    VALUES (${budget.organizationId}, ${String(budget.monthlyLimitUsd)}, ${sql.array([...budget.alertThresholdsPct], 'int4')},
            ${budget.enforce}, ${sql.timestamp(budget.now)})
    ON CONFLICT (organization_id) DO UPDATE SET
      monthly_limit_usd = excluded.monthly_limit_usd,
      alert_thresholds_pct = excluded.alert_thresholds_pct,
      enforce = excluded.enforce,
      updated_at = excluded.updated_at
    RETURNING ${budgetColumns}`);
}

export function findBudget(db: CommonQueryMethods, organizationId: string) {
  return db.maybeOne(sql.type(Budget)`SELECT ${budgetColumns} FROM usage_budgets WHERE organization_id = ${organizationId}`);
}

/** Every organization with a budget (the once-a-minute sweep). */
export function listBudgetedOrganizationIds(db: CommonQueryMethods) {
  return db.anyFirst(sql.type(IdRow)`
    SELECT organization_id::text AS id FROM usage_budgets ORDER BY organization_id`);
}

export async function deleteBudget(db: CommonQueryMethods, organizationId: string): Promise<boolean> {
  const deleted = await db.maybeOneFirst(sql.type(IdRow)`
    DELETE FROM usage_budgets WHERE organization_id = ${organizationId} RETURNING organization_id::text AS id`);
  return deleted !== null;
}

const KindRow = z.strictObject({ kind: z.string() });

/**
 * Records that the alert `kind` of `month` is going out; false when it already went. The
 * primary key makes the first caller win, across processes and overlapping checks.
 */
export async function claimBudgetAlert(
  db: CommonQueryMethods,
  alert: { organizationId: string; month: string; kind: string; spentUsd: number; now: Date },
): Promise<boolean> {
  const claimed = await db.maybeOneFirst(sql.type(KindRow)`
    INSERT INTO usage_budget_alerts (organization_id, month, kind, spent_usd, sent_at)
    VALUES (${alert.organizationId}, ${alert.month}, ${alert.kind}, ${String(alert.spentUsd)}, ${sql.timestamp(alert.now)})
    ON CONFLICT DO NOTHING
    RETURNING kind`);
  return claimed !== null;
}

const Recipient = z.strictObject({ email: z.string(), organizationName: z.string() });

/** Users of the organization whose roles grant `update` on `organization`: who budget alerts go to. */
export function listBudgetAlertRecipients(db: CommonQueryMethods, organizationId: string) {
  return db.any(sql.type(Recipient)`
    SELECT u.email, o.name AS "organizationName"
    FROM users u JOIN organizations o ON o.id = u.organization_id
    WHERE u.organization_id = ${organizationId} AND u.type = 'user'
      AND EXISTS (
        SELECT 1 FROM user_roles ur JOIN role_permissions rp ON rp.role_id = ur.role_id
        WHERE ur.user_id = u.id AND rp.subject = 'organization' AND rp.action = 'update')
    ORDER BY u.email`);
}

/** Takes the sweep lock for the current transaction when no other session holds it; false otherwise. */
export async function tryBudgetSweepLock(db: CommonQueryMethods): Promise<boolean> {
  return db.oneFirst(sql.type(LockedRow)`
    SELECT pg_try_advisory_xact_lock(${BUDGET_SWEEP_LOCK_KEY}) AS locked`);
}

/** Advisory lock key of the budget sweep (the migration lock and the test template use their own). */
export const BUDGET_SWEEP_LOCK_KEY = 7_204_193_070;

const SpentRow = z.strictObject({ spent: z.number() });

/**
 * An organization's spend over whole UTC days `[from, to)` (a month), from the day rollup alone:
 * one index range on its primary key, which includes the cost (what an enforced budget checks a
 * chat turn against).
 */
export function findSpendOfDays(db: CommonQueryMethods, organizationId: string, from: Date, to: Date) {
  return db.oneFirst(sql.type(SpentRow)`
    SELECT coalesce(sum(cost_usd), 0)::float8 AS spent FROM usage_rollup_day
    WHERE organization_id = ${organizationId} AND day >= ${sql.timestamp(from)} AND day < ${sql.timestamp(to)}`);
}

const UsageLimits = z.strictObject({
  budgetEnforced: z.boolean().nullable(),
  budgetLimitUsd: z.number().nullable(),
  planLimitUsd: z.number().nullable(),
  spentUsd: z.number().nullable(),
});

/**
 * What holds an organization's monthly spend: its budget (none: `budgetEnforced` null) and the
 * `monthlyUsageUsd` of its plan (null: none), what reserve_usage (migration 1220) enforces; and,
 * when either limit holds, its spend over the whole UTC days `[from, to)` (as `findSpendOfDays`
 * reads it), in the same statement (null when no limit holds).
 */
export function findUsageLimits(db: CommonQueryMethods, organizationId: string, month: { from: Date; to: Date }) {
  return db.one(sql.type(UsageLimits)`
    SELECT l."budgetEnforced", l."budgetLimitUsd", l."planLimitUsd",
           CASE WHEN l."budgetEnforced" OR l."planLimitUsd" IS NOT NULL THEN
             (SELECT coalesce(sum(cost_usd), 0)::float8 FROM usage_rollup_day
              WHERE organization_id = ${organizationId} AND day >= ${sql.timestamp(month.from)} AND day < ${sql.timestamp(month.to)})
           END AS "spentUsd"
    FROM (SELECT b.enforce AS "budgetEnforced", b.monthly_limit_usd::float8 AS "budgetLimitUsd",
                 (SELECT p.monthly_usage_usd::float8 FROM organizations o JOIN plans p ON p.id = o.plan_id
                  WHERE o.id = ${organizationId}) AS "planLimitUsd"
          FROM (SELECT 1) one LEFT JOIN usage_budgets b ON b.organization_id = ${organizationId}) l`);
}
