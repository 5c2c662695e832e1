/**
 * The bench dataset's end users (the agents' web channels): who they are, which share of the
 * usage rows they make, and their chat turns, which the end-users route counts.
 */
import { performance } from 'node:perf_hooks';
import { sql, type DatabasePool } from 'slonik';

/** Share of the rows of end users' actions (all but document indexing) that carry an end user (the agents' web channels). */
export const END_USER_SHARE = 0.3;

/** Organization i's agent, whose channel its end users come through. */
const agentId = (i: number) => `01900000-0000-7000-8000-${(0xa000 + i).toString(16).padStart(12, '0')}`;
/** End users per organization: the largest has 5,000 customers, the others 100 each. */
const endUserCount = (i: number) => (i === 0 ? 5_000 : 100);
export const endUserIds = (i: number) =>
  Array.from(
    { length: endUserCount(i) },
    (_, n) => `0190000e-${i.toString(16).padStart(4, '0')}-7000-8000-${n.toString(16).padStart(12, '0')}`,
  );

/** Organization i's agent and its end users: two verified customers of the business for one anonymous visitor. */
export async function insertEndUsers(db: DatabasePool, i: number, organizationId: string): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO agents (id, organization_id, name) VALUES (${agentId(i)}, ${organizationId}, ${`Bench agent ${i}`}) ON CONFLICT DO NOTHING`);
  await db.query(sql.unsafe`
    INSERT INTO end_users (id, organization_id, agent_id, kind, external_id, visitor_token_hash, created_at, last_seen_at)
    SELECT u.id, ${organizationId}, ${agentId(i)}, CASE WHEN u.n % 3 = 0 THEN 'anonymous' ELSE 'verified' END,
           CASE WHEN u.n % 3 = 0 THEN NULL ELSE 'customer-' || u.n END,
           CASE WHEN u.n % 3 = 0 THEN sha256(u.id::text::bytea) END, now(), now()
    FROM unnest(${sql.array(endUserIds(i), 'uuid')}::uuid[]) WITH ORDINALITY AS u(id, n)
    ON CONFLICT DO NOTHING`);
}

/**
 * The end users' chat turns, which the end-users route counts: one finished turn per end-user
 * `user_interaction` row, started two seconds before it, in one conversation per end user and UTC
 * day. (A turn with tools makes several such rows, so this is more turns than a live service
 * would keep for the same usage.) Built once, from the usage rows, also on a dataset built before.
 */
export async function insertEndUserTurns(db: DatabasePool): Promise<string> {
  if ((await db.maybeOne(sql.unsafe`SELECT 1 FROM chat_turns WHERE end_user_id IS NOT NULL LIMIT 1`)) !== null)
    return "end users' turns: kept";
  const started = performance.now();
  const turns = await db.query(sql.unsafe`
    INSERT INTO chat_turns (id, organization_id, agent_id, end_user_id, client_conversation_id, started_at, lease_until, ended_at, outcome)
    SELECT gen_random_uuid(), e.organization_id, u.agent_id, e.end_user_id, 'day-' || to_char(e.created_at AT TIME ZONE 'UTC', 'YYYYMMDD'),
           e.created_at - interval '2 seconds', e.created_at, e.created_at, 'finished'
    FROM usage_events e JOIN end_users u ON u.id = e.end_user_id
    WHERE e.end_user_id IS NOT NULL AND e.action_type = 'user_interaction'
    ORDER BY e.created_at`);
  return `end users' turns: ${turns.rowCount} in ${Math.round((performance.now() - started) / 1000)} s`;
}
