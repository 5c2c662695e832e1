import type { CommonQueryMethods } from 'slonik';
import type { AppDeps } from '../core/deps.ts';
import { outboxTransport } from './outbox-transport.ts';

/** A message for one recipient. `text` may carry a secret (a code) and is never logged. */
export type OutgoingMessage = {
  channel: 'email' | 'sms';
  to: string;
  /** Names what the message is about; safe to log. */
  template: string;
  subject?: string;
  text: string;
};

/**
 * Delivers messages. `db` is the caller's connection or transaction, so a transport that
 * records messages (the outbox) commits or rolls back together with the change that sent them.
 * Other transports (SMTP, an SMS provider) implement the same interface and are returned by
 * `transportFor`.
 */
export interface NotificationTransport {
  send(db: CommonQueryMethods, message: OutgoingMessage): Promise<{ messageId: string }>;
}

/** The transport of this app: the outbox (the default and, for now, the only one). */
export function transportFor(deps: AppDeps): NotificationTransport {
  return outboxTransport(deps);
}
