import type { CommonQueryMethods } from 'slonik';

/** A message for one recipient. `text` may carry a secret (a code) and is never logged. */
export type OutgoingMessage = {
  channel: 'email' | 'sms';
  to: string;
  /** Names what the message is about; safe to log. */
  template: string;
  subject?: string;
  text: string;
  /** Where replies go (an email sent on a user's behalf: the user). */
  replyTo?: string;
  /**
   * The organization the message is sent for: an email then carries the brand in force there (its
   * agency's product name as From name and at the end of the text), when its agency has one.
   */
  organizationId?: string;
};

/**
 * Hands messages over for delivery. `db` is the caller's connection or transaction, so a
 * transport that records messages (the outbox) commits or rolls back together with the change
 * that sent them. Delivery itself (SMTP, an SMS provider) is the outbox worker's job.
 */
export interface NotificationTransport {
  send(db: CommonQueryMethods, message: OutgoingMessage): Promise<{ messageId: string }>;
}
