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
