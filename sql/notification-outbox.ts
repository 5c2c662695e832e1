import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export function insertOutboxMessage(
  db: CommonQueryMethods,
  message: { id: string; channel: 'email' | 'sms'; recipient: string; template: string; sealedBody: Buffer },
) {
  return db.query(sql.unsafe`
    INSERT INTO notification_outbox (id, channel, recipient, template, sealed_body)
    VALUES (${message.id}, ${message.channel}, ${message.recipient}, ${message.template}, ${sql.binary(message.sealedBody)})`);
}

const OutboxMessage = z.object({
  id: z.string(),
  channel: z.enum(['email', 'sms']),
  recipient: z.string(),
  template: z.string(),
  sealedBody: z.instanceof(Buffer),
  createdAt: z.string(),
});

/** The messages for a recipient, newest first (for a delivery worker and for tests). */
export function listOutboxMessagesTo(db: CommonQueryMethods, recipient: string) {
  return db.any(sql.type(OutboxMessage)`
    SELECT id, channel, recipient, template, sealed_body AS "sealedBody", created_at AS "createdAt"
    FROM notification_outbox WHERE recipient = ${recipient} ORDER BY created_at DESC, id DESC`);
}
