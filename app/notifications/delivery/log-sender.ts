import type { Logger } from 'pino';
import { maskRecipient } from '../mask.ts';
import type { Delivery, Sender } from './sender.ts';

/**
 * Development only (no SMTP_URL or SMS provider): "delivers" a message by writing it, text
 * included, to the service log, so a developer can read a verification code there. Never
 * chosen outside NODE_ENV=development, and the text never reaches an HTTP response.
 */
export function logSender(logger: Logger, channel: Delivery['channel']): Sender {
  return {
    name: 'log',
    async send(delivery: Delivery) {
      logger.info(
        {
          messageId: delivery.id,
          channel,
          template: delivery.template,
          to: maskRecipient(delivery.to),
          subject: delivery.subject,
        },
        `development ${channel} (not sent; configure ${channel === 'email' ? 'SMTP_URL' : 'SMS_PROVIDER_URL'} to send): ${delivery.text}`,
      );
    },
  };
}
