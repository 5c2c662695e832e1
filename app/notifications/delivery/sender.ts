/** One outbox message, opened, on its way to a provider. */
export type Delivery = {
  /** The outbox row id: the idempotency key of every attempt to deliver this message. */
  id: string;
  channel: 'email' | 'sms';
  to: string;
  template: string;
  subject?: string;
  text: string;
  replyTo?: string;
  /** The From display name (an agency's product name); absent: the configured From as it is. */
  fromName?: string;
};

/** Sends one channel's messages. Resolves once the provider accepted the message. */
export interface Sender {
  /** Short name for logs and `last_error` (`smtp`, `sms-http`, `log`). */
  readonly name: string;
  send(delivery: Delivery): Promise<void>;
}

/**
 * A failed delivery. `permanent`: trying again cannot help (the provider refused the
 * recipient or the message: SMTP 5xx, HTTP 4xx other than 408 and 429), so the message goes
 * straight to the dead-letter state. The message never carries the body.
 */
export class DeliveryError extends Error {
  override name = 'DeliveryError';
  readonly permanent: boolean;
  constructor(message: string, permanent: boolean) {
    super(message);
    this.permanent = permanent;
  }
}
