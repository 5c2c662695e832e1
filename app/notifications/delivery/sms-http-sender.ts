import { DeliveryError, type Delivery, type Sender } from './sender.ts';

export type SmsHttpSenderOptions = {
  /** The provider's send endpoint (`SMS_PROVIDER_URL`). */
  url: string;
  /** Sent as `Authorization: Bearer <key>` (`SMS_PROVIDER_KEY`). */
  key: string;
  /** Bound on the whole request, in milliseconds. Default 10 000. */
  timeoutMs?: number;
};

/**
 * A pluggable SMS provider over HTTP: `POST <url>` with `{ to, text, messageId }` and the
 * headers `Authorization: Bearer <key>` and `Idempotency-Key: <outbox id>`, the same on every
 * attempt, so a provider that honours the header sends a retried message once. Any 2xx is
 * success; 408, 429 and 5xx are retried; other 4xx are permanent. A provider with another
 * shape sits behind a small adapter that speaks this one.
 */
export function smsHttpSender(options: SmsHttpSenderOptions): Sender {
  const timeout = options.timeoutMs ?? 10_000;
  return {
    name: 'sms-http',
    async send(delivery: Delivery) {
      let response: Response;
      try {
        response = await fetch(options.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${options.key}`,
            'idempotency-key': delivery.id,
          },
          body: JSON.stringify({ to: delivery.to, text: delivery.text, messageId: delivery.id }),
          redirect: 'error',
          signal: AbortSignal.timeout(timeout),
        });
      } catch (error) {
        const name = (error as Error).name;
        throw new DeliveryError(`sms-http: ${name === 'TimeoutError' ? 'timeout' : 'connection failed'}`, false);
      }
      await response.body?.cancel();
      if (response.ok) return;
      const status = response.status;
      const permanent = status >= 400 && status < 500 && status !== 408 && status !== 429;
      throw new DeliveryError(`sms-http: HTTP ${status}`, permanent);
    },
  };
}
