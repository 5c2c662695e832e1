import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const SentRow = z.strictObject({ organization: z.number(), user: z.number() });

/**
 * Emails the organization's agents queued since `since` (one per recipient), in all and for
 * `userId`, counted after taking a transaction-scoped lock per organization: concurrent sends
 * count one after the other.
 */
export async function lockAndCountSentEmails(
  db: CommonQueryMethods,
  ids: { organizationId: string; userId: string },
  since: Date,
): Promise<{ organization: number; user: number }> {
  await db.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`agent_sent_emails:${ids.organizationId}`}, 0))`);
  return db.one(sql.type(SentRow)`
    SELECT coalesce(sum(recipients), 0)::int AS organization,
           coalesce(sum(recipients) FILTER (WHERE user_id = ${ids.userId}), 0)::int AS "user"
    FROM agent_sent_emails
    WHERE organization_id = ${ids.organizationId} AND created_at >= ${sql.timestamp(since)}`);
}

export function insertSentEmail(
  db: CommonQueryMethods,
  row: { id: string; organizationId: string; agentId: string; userId: string; recipients: number; createdAt: Date },
) {
  return db.query(sql.unsafe`
    INSERT INTO agent_sent_emails (id, organization_id, agent_id, user_id, recipients, created_at)
    VALUES (${row.id}, ${row.organizationId}, ${row.agentId}, ${row.userId}, ${row.recipients}, ${sql.timestamp(row.createdAt)})`);
}
