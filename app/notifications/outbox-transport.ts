import { uuidv7 } from 'uuidv7';
import { findBrandingInForce } from '../../sql/brandings.ts';
import { insertOutboxMessage } from '../../sql/notification-outbox.ts';
import type { AppDeps } from '../core/deps.ts';
import { sealMessageBody } from './sealing.ts';
import { maskRecipient } from './mask.ts';
import type { NotificationTransport } from './message.ts';

/**
 * Records each message in `notification_outbox` (body sealed, see sealing.ts) and logs one
 * line naming the message, never its body: the body may carry a verification code.
 */
export function outboxTransport(deps: Pick<AppDeps, 'config' | 'logger'>): NotificationTransport {
  return {
    async send(db, message) {
      const messageId = uuidv7();
      const brand = message.channel === 'email' && message.organizationId ? await findBrandingInForce(db, message.organizationId) : null;
      await insertOutboxMessage(db, {
        id: messageId,
        channel: message.channel,
        recipient: message.to,
        template: message.template,
        sealedBody: sealMessageBody(deps.config.credentialsKeyring, messageId, {
          subject: message.subject,
          text: brand ? `${message.text}\n\n— ${brand.productName}` : message.text,
          ...(message.replyTo ? { replyTo: message.replyTo } : {}),
          ...(brand ? { fromName: brand.productName } : {}),
        }),
      });
      deps.logger.info(
        { messageId, channel: message.channel, template: message.template, to: maskRecipient(message.to) },
        'notification queued in the outbox',
      );
      return { messageId };
    },
  };
}
