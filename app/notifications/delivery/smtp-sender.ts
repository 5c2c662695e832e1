import { createTransport } from 'nodemailer';
import { DeliveryError, type Delivery, type Sender } from './sender.ts';

export type SmtpSenderOptions = {
  /** `smtp://[user:password@]host:port` (or `smtps://`): the `SMTP_URL` setting. */
  url: string;
  /** The From address (`MAIL_FROM`); its domain names the Message-ID. */
  from: string;
  /** Bound on connecting, on the server's greeting and on each silent wait, in milliseconds. Default 10 000. */
  timeoutMs?: number;
};

/** SMTP reply codes 5xx are permanent failures (RFC 5321 §4.2.1); anything else may pass later. */
const isPermanent = (error: unknown) => {
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
};

/**
 * Sends email through one SMTP server with nodemailer (a connection per message: the outbox
 * sends few, and a broken connection never outlives one message). The Message-ID is derived
 * from the outbox id, so a message sent again after a crash carries the same Message-ID and a
 * receiving system can drop the duplicate.
 */
export function smtpSender(options: SmtpSenderOptions): Sender {
  const timeout = options.timeoutMs ?? 10_000;
  const transporter = createTransport({
    url: options.url,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    // Delivery failures are retried by the worker; nodemailer must not log message contents.
    logger: false,
    debug: false,
  });
  // `Name <address>` or a bare address: the address, which an agency's From name goes with.
  const [open, close] = [options.from.lastIndexOf('<'), options.from.lastIndexOf('>')];
  const fromAddress = open >= 0 && close > open ? options.from.slice(open + 1, close) : options.from.trim();
  const domain = options.from.slice(options.from.lastIndexOf('@') + 1).replace(/>$/, '') || 'localhost';
  return {
    name: 'smtp',
    async send(delivery: Delivery) {
      try {
        await transporter.sendMail({
          // An agency's product name replaces the display name; the address stays the service's own.
          from: delivery.fromName ? { name: delivery.fromName, address: fromAddress } : options.from,
          to: delivery.to,
          subject: delivery.subject ?? '',
          text: delivery.text,
          ...(delivery.replyTo ? { replyTo: delivery.replyTo } : {}),
          messageId: `<${delivery.id}@${domain}>`,
          headers: { 'X-Outbox-Message-Id': delivery.id },
        });
      } catch (error) {
        const reason = error as { code?: string; responseCode?: number; message?: string };
        // The server's reply may quote the recipient but never the body; the code is enough.
        const detail = reason.responseCode ? `SMTP ${reason.responseCode}` : (reason.code ?? 'connection failed');
        throw new DeliveryError(`smtp: ${detail}`, isPermanent(error));
      }
    },
  };
}
