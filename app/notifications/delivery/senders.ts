import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import { logSender } from './log-sender.ts';
import type { Sender } from './sender.ts';
import { smsHttpSender } from './sms-http-sender.ts';
import { smtpSender } from './smtp-sender.ts';

export type Senders = { email?: Sender; sms?: Sender };

/**
 * The sender of each channel from the configuration: SMTP when `SMTP_URL` is set, the HTTP SMS
 * provider when `SMS_PROVIDER_URL` is set; otherwise, in development only, the log. A channel
 * without a sender is left queued (its messages wait in the outbox until one is configured).
 */
export function sendersFor(config: Config, logger: Logger): Senders {
  const n = config.notifications;
  const development = config.nodeEnv === 'development';
  const senders: Senders = {};
  if (n.smtpUrl) senders.email = smtpSender({ url: n.smtpUrl, from: n.mailFrom });
  else if (development) senders.email = logSender(logger, 'email');
  if (n.smsProviderUrl && n.smsProviderKey) senders.sms = smsHttpSender({ url: n.smsProviderUrl, key: n.smsProviderKey });
  else if (development) senders.sms = logSender(logger, 'sms');
  return senders;
}
