import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/*
 * End users of agents' web channels (migration 1102, docs/channel.md): who they are, and how many
 * new messages each sent today (the channel's daily quota).
 */

const EndUser = z.strictObject({
  id: z.string(),
  kind: z.enum(['anonymous', 'verified', 'client']),
  externalId: z.string().nullable(),
  name: z.string().nullable(),
  email: z.string().nullable(),
});
export type EndUser = z.infer<typeof EndUser>;

const endUserColumns = sql.fragment`u.id, u.kind, u.external_id AS "externalId", u.name, u.email`;

/**
 * An end user as the organization's staff see them (approvals, transcripts): how they were
 * vouched for (`kind`: `visitor`, `verified`, `client`) and the name and email they gave.
 */
export const StaffEndUserRef = z.strictObject({
  id: z.string(),
  externalId: z.string().nullable(),
  verified: z.boolean(),
  kind: z.enum(['visitor', 'verified', 'client']),
  name: z.string().nullable(),
  email: z.string().nullable(),
});

/** `StaffEndUserRef` of the end user aliased `u`, as one JSON column. */
export const staffEndUserRef = sql.fragment`json_build_object(
  'id', u.id, 'externalId', u.external_id, 'verified', u.kind <> 'anonymous',
  'kind', CASE u.kind WHEN 'anonymous' THEN 'visitor' ELSE u.kind END, 'name', u.name, 'email', u.email)`;

/** The anonymous end user of this agent whose visitor token hashes to `tokenHash` and has not run out; else null. */
export function findVisitor(db: CommonQueryMethods, agentId: string, tokenHash: Buffer, now: Date) {
  return db.maybeOne(sql.type(EndUser)`
    UPDATE end_users u SET last_seen_at = ${sql.timestamp(now)}
    WHERE u.agent_id = ${agentId} AND u.visitor_token_hash = ${sql.binary(tokenHash)} AND u.visitor_expires_at > ${sql.timestamp(now)}
    RETURNING ${endUserColumns}`);
}

/** A new anonymous end user of the agent, continued by the visitor token hashing to `tokenHash` until `expiresAt`. */
export function insertVisitor(
  db: CommonQueryMethods,
  visitor: { id: string; organizationId: string; agentId: string; tokenHash: Buffer; expiresAt: Date; now: Date },
) {
  return db.one(sql.type(EndUser)`
    INSERT INTO end_users AS u (id, organization_id, agent_id, kind, visitor_token_hash, visitor_expires_at, created_at, last_seen_at)
    VALUES (${visitor.id}, ${visitor.organizationId}, ${visitor.agentId}, 'anonymous', ${sql.binary(visitor.tokenHash)},
            ${sql.timestamp(visitor.expiresAt)}, ${sql.timestamp(visitor.now)}, ${sql.timestamp(visitor.now)})
    RETURNING ${endUserColumns}`);
}

/**
 * The end user the business vouches for (`verified`: its user id, proven by the channel's HMAC) or
 * the organization's own client (`client`: its id), the same on every session: made on first sight,
 * its name and email refreshed from what the session brings.
 */
export function upsertKnownEndUser(
  db: CommonQueryMethods,
  user: {
    id: string;
    organizationId: string;
    agentId: string;
    kind: 'verified' | 'client';
    externalId: string;
    name: string | null;
    email: string | null;
    now: Date;
  },
) {
  return db.one(sql.type(EndUser)`
    INSERT INTO end_users AS u (id, organization_id, agent_id, kind, external_id, name, email, created_at, last_seen_at)
    VALUES (${user.id}, ${user.organizationId}, ${user.agentId}, ${user.kind}, ${user.externalId}, ${user.name}, ${user.email},
            ${sql.timestamp(user.now)}, ${sql.timestamp(user.now)})
    ON CONFLICT (agent_id, kind, external_id) DO UPDATE SET
      name = coalesce(excluded.name, u.name), email = coalesce(excluded.email, u.email), last_seen_at = excluded.last_seen_at
    RETURNING ${endUserColumns}`);
}

const Session = z.strictObject({
  channel: z.strictObject({
    allowedOrigins: z.array(z.string()),
    approvals: z.enum(['staff', 'end_user']),
    endUserMessagesPerDay: z.number().int(),
  }),
  agentId: z.string(),
  organizationId: z.string(),
  endUser: EndUser,
});

/**
 * What a session token names, when it still holds: the end user of this agent, its agent in use
 * and the agent's channel enabled (null otherwise: a disabled channel or an archived agent ends
 * every session at once). One statement.
 */
export function findChannelSession(db: CommonQueryMethods, agentId: string, endUserId: string) {
  return db.maybeOne(sql.type(Session)`
    SELECT json_build_object('allowedOrigins', c.allowed_origins, 'approvals', c.approvals,
                             'endUserMessagesPerDay', c.end_user_messages_per_day) AS channel,
           c.agent_id AS "agentId", c.organization_id AS "organizationId",
           json_build_object('id', u.id, 'kind', u.kind, 'externalId', u.external_id, 'name', u.name, 'email', u.email) AS "endUser"
    FROM end_users u
    JOIN agent_channels c ON c.agent_id = u.agent_id AND c.enabled
    JOIN agents a ON a.id = c.agent_id AND a.archived_at IS NULL
    WHERE u.id = ${endUserId} AND u.agent_id = ${agentId}`);
}

const Counted = z.strictObject({ day: z.number().nullable(), month: z.number().nullable(), monthLimit: z.number().nullable() });

/**
 * Counts one message of the end user on `day` (when fewer than `dayLimit` were counted) and then,
 * only if that was counted, one of their organization in `month` (its first day; when fewer than its
 * plan's `maxEndUserMessagesPerMonth` were counted). One statement, one round trip: concurrent
 * messages count one after another on each row, so both limits are exact; an end user past their
 * own day never uses up the organization's month. `day` / `month` are the new counts, null when
 * refused (`month` is also null when the day was refused); `monthLimit` is the plan's (null: none).
 */
export function countEndUserMessage(
  db: CommonQueryMethods,
  message: { endUserId: string; day: string; dayLimit: number; organizationId: string; month: string },
) {
  return db.one(sql.type(Counted)`
    WITH counted_day AS (
      INSERT INTO end_user_daily_messages AS d (end_user_id, day, messages)
      SELECT ${message.endUserId}, ${message.day}::date, 1 WHERE ${message.dayLimit} >= 1
      ON CONFLICT (end_user_id, day) DO UPDATE SET messages = d.messages + 1 WHERE d.messages < ${message.dayLimit}
      RETURNING d.messages),
    lim AS (
      SELECT (SELECT p.max_end_user_messages_per_month FROM organizations o JOIN plans p ON p.id = o.plan_id
              WHERE o.id = ${message.organizationId}) AS n),
    counted_month AS (
      INSERT INTO organization_monthly_messages AS m (organization_id, month, messages)
      SELECT ${message.organizationId}, ${message.month}::date, 1 FROM lim
      WHERE EXISTS (SELECT 1 FROM counted_day) AND (lim.n IS NULL OR lim.n >= 1)
      ON CONFLICT (organization_id, month) DO UPDATE SET messages = m.messages + 1
      WHERE (SELECT n FROM lim) IS NULL OR m.messages < (SELECT n FROM lim)
      RETURNING m.messages)
    SELECT (SELECT messages FROM counted_day) AS day, (SELECT messages FROM counted_month) AS month, lim.n AS "monthLimit"
    FROM lim`);
}

/** One end user, by id (who an approval or a transcript belongs to). */
export function findEndUser(db: CommonQueryMethods, endUserId: string) {
  return db.maybeOne(sql.type(EndUser)`SELECT ${endUserColumns} FROM end_users u WHERE u.id = ${endUserId}`);
}
