import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { PresentRow } from './rows.ts';

/** A plan's limits (NULL: none): what a business on it may have and use (docs/billing.md). */
const PlanLimits = z.strictObject({
  maxAgents: z.number().nullable(),
  maxUsers: z.number().nullable(),
  maxEndUserMessagesPerMonth: z.number().nullable(),
  maxDocumentsMb: z.number().nullable(),
  monthlyUsageUsd: z.number().nullable(),
});
export type PlanLimits = z.infer<typeof PlanLimits>;

const Plan = z.strictObject({
  id: z.string(),
  name: z.string(),
  isPublic: z.boolean(),
  isActive: z.boolean(),
  maxUsers: z.number().nullable(),
  /** The monthly price in integer cents (the API shows dollars). */
  priceCents: z.number(),
  usageMarkupPercent: z.number(),
  limits: PlanLimits,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Plan = z.infer<typeof Plan>;

/** The limits of the plan aliased `p`, as one JSON column (numeric(12,2) dollars are exact as JSON numbers of 2 decimals). */
const limitsOf = sql.fragment`json_build_object(
  'maxAgents', p.max_agents, 'maxUsers', p.max_users, 'maxEndUserMessagesPerMonth', p.max_end_user_messages_per_month,
  'maxDocumentsMb', p.max_documents_mb, 'monthlyUsageUsd', p.monthly_usage_usd::float8)`;

const columns = sql.fragment`
  p.id, p.name, p.is_public AS "isPublic", p.is_active AS "isActive", p.max_users AS "maxUsers",
  p.price_cents AS "priceCents", p.usage_markup_percent AS "usageMarkupPercent", ${limitsOf} AS limits,
  p.created_at AS "createdAt", p.updated_at AS "updatedAt"`;

/** Does the agency offer at least one plan that is both active and public? */
export function agencyHasActivePublicPlan(db: CommonQueryMethods, organizationId: string) {
  return db.oneFirst(sql.type(PresentRow)`
    SELECT EXISTS (
      SELECT 1 FROM plans WHERE organization_id = ${organizationId} AND is_active AND is_public
    ) AS present`);
}

export function listPlansOfOrganization(db: CommonQueryMethods, organizationId: string) {
  return db.any(sql.type(Plan)`
    SELECT ${columns} FROM plans p WHERE p.organization_id = ${organizationId} ORDER BY p.created_at, p.id`);
}

/** One plan of this agency, by id; null when missing or another agency's. */
export function findPlanOfOrganization(db: CommonQueryMethods, organizationId: string, planId: string) {
  return db.maybeOne(sql.type(Plan)`
    SELECT ${columns} FROM plans p WHERE p.id = ${planId} AND p.organization_id = ${organizationId}`);
}

/** The agency's oldest active public plan (what a business registers on without naming one); null for none. */
export function findOldestActivePublicPlan(db: CommonQueryMethods, organizationId: string) {
  return db.maybeOne(sql.type(Plan)`
    SELECT ${columns} FROM plans p
    WHERE p.organization_id = ${organizationId} AND p.is_active AND p.is_public
    ORDER BY p.created_at, p.id LIMIT 1`);
}

/** What a plan is made of, money in exact units: cents, and dollars as a decimal string. */
export type PlanFields = {
  name: string;
  isPublic: boolean;
  isActive: boolean;
  priceCents: number;
  usageMarkupPercent: number;
  limits: { [K in keyof PlanLimits]: K extends 'monthlyUsageUsd' ? string | null : number | null };
};

/** A new plan, and its price from `now` (plan_prices: what a month's bill reads). */
export function insertPlan(db: CommonQueryMethods, plan: { id: string; organizationId: string; now: Date } & PlanFields) {
  const { limits } = plan;
  return db.one(sql.type(Plan)`
    WITH p AS (
      INSERT INTO plans (id, organization_id, name, is_public, is_active, max_users, price_cents, usage_markup_percent,
                         max_agents, max_end_user_messages_per_month, max_documents_mb, monthly_usage_usd)
      VALUES (${plan.id}, ${plan.organizationId}, ${plan.name}, ${plan.isPublic}, ${plan.isActive}, ${limits.maxUsers},
              ${plan.priceCents}, ${plan.usageMarkupPercent}, ${limits.maxAgents}, ${limits.maxEndUserMessagesPerMonth},
              ${limits.maxDocumentsMb}, ${limits.monthlyUsageUsd}::numeric)
      RETURNING *),
    price AS (
      INSERT INTO plan_prices (plan_id, price_cents, usage_markup_percent, starts_at)
      SELECT id, price_cents, usage_markup_percent, ${sql.timestamp(plan.now)} FROM p)
    SELECT ${columns} FROM p`);
}

/** A change of a plan: absent fields stay; a limit given `null` is cleared. */
export type PlanChange = Partial<Omit<PlanFields, 'limits'>> & { limits?: Partial<PlanFields['limits']> };

/**
 * Changes a plan of this agency; none when the plan is missing or belongs to another agency. A
 * change of price or markup is recorded from `now` (plan_prices), so months already billed keep theirs.
 */
export function updatePlanOfOrganization(db: CommonQueryMethods, organizationId: string, planId: string, change: PlanChange, now: Date) {
  const limits = change.limits ?? {};
  // A limit is set when its key is present (null clears it), kept when absent.
  const limit = (key: keyof PlanLimits, column: string, cast: 'int4' | 'numeric') =>
    key in limits
      ? sql.fragment`${sql.identifier([column])} = ${limits[key] ?? null}::${sql.identifier([cast])}`
      : sql.fragment`${sql.identifier([column])} = ${sql.identifier(['plans', column])}`;
  return db.maybeOne(sql.type(Plan)`
    WITH p AS (
      UPDATE plans
      SET name = COALESCE(${change.name ?? null}::text, name),
          is_public = COALESCE(${change.isPublic ?? null}::boolean, is_public),
          is_active = COALESCE(${change.isActive ?? null}::boolean, is_active),
          price_cents = COALESCE(${change.priceCents ?? null}::int4, price_cents),
          usage_markup_percent = COALESCE(${change.usageMarkupPercent ?? null}::int4, usage_markup_percent),
          ${limit('maxUsers', 'max_users', 'int4')},
          ${limit('maxAgents', 'max_agents', 'int4')},
          ${limit('maxEndUserMessagesPerMonth', 'max_end_user_messages_per_month', 'int4')},
          ${limit('maxDocumentsMb', 'max_documents_mb', 'int4')},
          ${limit('monthlyUsageUsd', 'monthly_usage_usd', 'numeric')},
          updated_at = now()
      WHERE id = ${planId} AND organization_id = ${organizationId}
      RETURNING *),
    price AS (
      INSERT INTO plan_prices (plan_id, price_cents, usage_markup_percent, starts_at)
      SELECT p.id, p.price_cents, p.usage_markup_percent, ${sql.timestamp(now)} FROM p
      WHERE ${change.priceCents !== undefined || change.usageMarkupPercent !== undefined})
    SELECT ${columns} FROM p`);
}
