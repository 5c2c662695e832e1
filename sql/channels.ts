import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { Sealed } from './sealed.ts';

/*
 * Agents' web channels (migration 1102, docs/channel.md). A channel is found for a caller only
 * while it is enabled and its agent is not archived (`findChannelByKey`, `findChannelSession`).
 */

const Channel = z.strictObject({
  agentId: z.string(),
  organizationId: z.string(),
  enabled: z.boolean(),
  publishableKey: z.string(),
  allowedOrigins: z.array(z.string()),
  identity: z.enum(['anonymous', 'verified']),
  approvals: z.enum(['staff', 'end_user']),
  endUserMessagesPerDay: z.number().int(),
  greeting: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Channel = z.infer<typeof Channel>;

const channelColumns = sql.fragment`
  c.agent_id AS "agentId", c.organization_id AS "organizationId", c.enabled, c.publishable_key AS "publishableKey",
  c.allowed_origins AS "allowedOrigins", c.identity, c.approvals, c.end_user_messages_per_day AS "endUserMessagesPerDay",
  c.greeting, c.created_at AS "createdAt", c.updated_at AS "updatedAt"`;

export type ChannelSettings = Pick<Channel, 'enabled' | 'allowedOrigins' | 'identity' | 'approvals' | 'endUserMessagesPerDay' | 'greeting'>;

/**
 * Creates or changes the agent's channel. `publishableKey` is used only when the channel is new:
 * a channel keeps its key across changes.
 */
export function upsertChannel(
  db: CommonQueryMethods,
  channel: ChannelSettings & { agentId: string; organizationId: string; publishableKey: string; now: Date },
) {
  return db.one(sql.type(Channel)`
    INSERT INTO agent_channels AS c (agent_id, organization_id, publishable_key, enabled, allowed_origins, identity, approvals,
                                     end_user_messages_per_day, greeting, created_at, updated_at)
    VALUES (${channel.agentId}, ${channel.organizationId}, ${channel.publishableKey}, ${channel.enabled},
            ${sql.array(channel.allowedOrigins, 'text')}, ${channel.identity}, ${channel.approvals}, ${channel.endUserMessagesPerDay},
            ${channel.greeting}, ${sql.timestamp(channel.now)}, ${sql.timestamp(channel.now)})
    ON CONFLICT (agent_id) DO UPDATE SET
      enabled = excluded.enabled, allowed_origins = excluded.allowed_origins, identity = excluded.identity,
      approvals = excluded.approvals, end_user_messages_per_day = excluded.end_user_messages_per_day,
      greeting = excluded.greeting, updated_at = excluded.updated_at
    RETURNING ${channelColumns}`);
}

/** The agent's channel, whatever its state (the staff's view); null when it has none. */
export function findChannelOfAgent(db: CommonQueryMethods, agentId: string) {
  return db.maybeOne(sql.type(Channel)`SELECT ${channelColumns} FROM agent_channels c WHERE c.agent_id = ${agentId}`);
}

const ChannelWithSecret = Channel.extend({
  agentName: z.string(),
  secretKeyId: z.string().nullable(),
  secretCiphertext: z.instanceof(Buffer).nullable(),
  /** The brand in force for the channel's organization (its own, else its agency's): null for none. */
  brand: z.strictObject({ productName: z.string(), primaryColor: z.string() }).nullable(),
}).strict();
export type ChannelWithSecret = z.infer<typeof ChannelWithSecret>;

/**
 * The enabled channel of this publishable key whose agent is in use, with the agent's name, the
 * sealed secret and the brand in force (one statement: a session is opened on it); else null.
 */
export function findChannelByKey(db: CommonQueryMethods, publishableKey: string) {
  return db.maybeOne(sql.type(ChannelWithSecret)`
    SELECT ${channelColumns}, a.name AS "agentName", c.secret_key_id AS "secretKeyId", c.secret_ciphertext AS "secretCiphertext",
      (SELECT json_build_object('productName', b.product_name, 'primaryColor', b.primary_color)
       FROM organizations o JOIN organization_brandings b ON b.organization_id = coalesce(o.parent_id, o.id)
       WHERE o.id = c.organization_id) AS brand
    FROM agent_channels c JOIN agents a ON a.id = c.agent_id AND a.archived_at IS NULL
    WHERE c.publishable_key = ${publishableKey} AND c.enabled`);
}

/** Replaces the channel's secret; false when the agent has no channel. */
export async function setChannelSecret(db: CommonQueryMethods, agentId: string, secret: Sealed, now: Date): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    UPDATE agent_channels SET secret_key_id = ${secret.keyId}, secret_ciphertext = ${sql.binary(secret.ciphertext)},
      updated_at = ${sql.timestamp(now)}
    WHERE agent_id = ${agentId}`);
  return result.rowCount > 0;
}
