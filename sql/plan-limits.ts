import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { CountRow } from './rows.ts';

/*
 * What a business's plan limits count (docs/billing.md, "Limits"): its plan's limits, its users,
 * its documents' bytes and its end-user messages of a UTC month.
 */

const Limits = z.strictObject({
  maxAgents: z.number().nullable(),
  maxUsers: z.number().nullable(),
  maxEndUserMessagesPerMonth: z.number().nullable(),
  maxDocumentsMb: z.number().nullable(),
});

/** The count limits of the organization's plan; null when it is on none (an agency, a business without a plan). */
export function findPlanLimitsOfOrganization(db: CommonQueryMethods, organizationId: string) {
  return db.maybeOne(sql.type(Limits)`
    SELECT p.max_agents AS "maxAgents", p.max_users AS "maxUsers",
           p.max_end_user_messages_per_month AS "maxEndUserMessagesPerMonth", p.max_documents_mb AS "maxDocumentsMb"
    FROM organizations o JOIN plans p ON p.id = o.plan_id
    WHERE o.id = ${organizationId}`);
}

/**
 * The organization's staff users, counted under a lock on its row that the caller's transaction
 * keeps until it ends (two statements on purpose: in READ COMMITTED the count sees what a writer
 * that held the lock before committed). `FOR NO KEY UPDATE`: foreign-key checks are not blocked.
 */
export async function countUsersUnderLock(tx: CommonQueryMethods, organizationId: string): Promise<number> {
  await tx.query(sql.unsafe`SELECT id FROM organizations WHERE id = ${organizationId} FOR NO KEY UPDATE`);
  return tx.oneFirst(sql.type(CountRow)`
    SELECT count(*)::int AS n FROM users WHERE organization_id = ${organizationId} AND type = 'user'`);
}

const BytesRow = z.strictObject({ bytes: z.number() });

/** Bytes of every knowledge document the organization stores (as uploaded). */
export function sumDocumentBytes(db: CommonQueryMethods, organizationId: string) {
  return db.oneFirst(sql.type(BytesRow)`
    SELECT coalesce(sum(bytes), 0)::float8 AS bytes FROM knowledge_documents WHERE organization_id = ${organizationId}`);
}

const PlanUsage = z.strictObject({
  planId: z.string().nullable(),
  planName: z.string().nullable(),
  maxAgents: z.number().nullable(),
  maxUsers: z.number().nullable(),
  maxEndUserMessagesPerMonth: z.number().nullable(),
  maxDocumentsMb: z.number().nullable(),
  monthlyUsageUsd: z.number().nullable(),
  agents: z.number(),
  users: z.number(),
  endUserMessages: z.number(),
  documentBytes: z.number(),
  usageUsd: z.number(),
});

/**
 * What the organization's plan allows beside what it uses now, each counted as its limit counts it:
 * agents not archived, staff users, end-user messages of `month` (its first day, UTC) over all its
 * channels, bytes of knowledge documents and the usage cost of that month, every source. The plan
 * columns are null without a plan. Read-only and without locks: a figure for people, not a gate.
 */
export function findPlanUsage(db: CommonQueryMethods, organizationId: string, month: Date) {
  return db.one(sql.type(PlanUsage)`
    SELECT p.id AS "planId", p.name AS "planName", p.max_agents AS "maxAgents", p.max_users AS "maxUsers",
           p.max_end_user_messages_per_month AS "maxEndUserMessagesPerMonth", p.max_documents_mb AS "maxDocumentsMb",
           p.monthly_usage_usd::float8 AS "monthlyUsageUsd",
           (SELECT count(*) FROM agents WHERE organization_id = o.id AND archived_at IS NULL)::int AS agents,
           (SELECT count(*) FROM users WHERE organization_id = o.id AND type = 'user')::int AS users,
           coalesce((SELECT messages FROM organization_monthly_messages
                     WHERE organization_id = o.id AND month = ${month.toISOString().slice(0, 10)}::date), 0) AS "endUserMessages",
           (SELECT coalesce(sum(bytes), 0) FROM knowledge_documents WHERE organization_id = o.id)::float8 AS "documentBytes",
           (SELECT coalesce(sum(cost_usd), 0) FROM usage_rollup_month
            WHERE organization_id = o.id AND month = ${sql.timestamp(month)})::float8 AS "usageUsd"
    FROM organizations o LEFT JOIN plans p ON p.id = o.plan_id
    WHERE o.id = ${organizationId}`);
}
