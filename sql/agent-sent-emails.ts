import { sql, type CommonQueryMethods } from 'slonik';
import { CountRow } from './rows.ts';

/**
 * Emails the organization's agents queued since `since` (one per recipient), counted after
 * taking a transaction-scoped lock per organization: concurrent sends count one after the other.
 */
export async function lockAndCountSentEmails(db: CommonQueryMethods, organizationId: string, since: Date): Promise<number> {
  await db.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`agent_sent_emails:${organizationId}`}, 0))`);
  return db.oneFirst(sql.type(CountRow)`
    SELECT coalesce(sum(recipients), 0)::int AS n FROM agent_sent_emails
    WHERE organization_id = ${organizationId} AND created_at >= ${sql.timestamp(since)}`);
}

export function insertSentEmail(
  db: CommonQueryMethods,
  row: { id: string; organizationId: string; agentId: string; userId: string; recipients: number; createdAt: Date },
) {
  return db.query(sql.unsafe`
    INSERT INTO agent_sent_emails (id, organization_id, agent_id, user_id, recipients, created_at)
    VALUES (${row.id}, ${row.organizationId}, ${row.agentId}, ${row.userId}, ${row.recipients}, ${sql.timestamp(row.createdAt)})`);
}
