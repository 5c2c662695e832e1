import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { Sealed } from './sealed.ts';

export function insertOutboxMessage(
  db: CommonQueryMethods,
  message: { id: string; channel: 'email' | 'sms'; recipient: string; template: string; sealedBody: Sealed },
) {
  return db.query(sql.unsafe`
    INSERT INTO notification_outbox (id, channel, recipient, template, sealed_body, sealed_body_key_id)
    VALUES (${message.id}, ${message.channel}, ${message.recipient}, ${message.template},
            ${sql.binary(message.sealedBody.ciphertext)}, ${message.sealedBody.keyId})`);
}

const OutboxMessage = z
  .object({
    id: z.string(),
    channel: z.enum(['email', 'sms']),
    recipient: z.string(),
    template: z.string(),
    keyId: z.string(),
    ciphertext: z.instanceof(Buffer),
    createdAt: z.string(),
  })
  .transform(({ keyId, ciphertext, ...message }) => ({ ...message, sealedBody: { keyId, ciphertext } }));

/** The messages for a recipient, newest first (for a delivery worker and for tests). */
export function listOutboxMessagesTo(db: CommonQueryMethods, recipient: string) {
  return db.any(sql.type(OutboxMessage)`
    SELECT id, channel, recipient, template, sealed_body_key_id AS "keyId", sealed_body AS ciphertext,
           created_at AS "createdAt"
    FROM notification_outbox WHERE recipient = ${recipient} ORDER BY created_at DESC, id DESC`);
}
