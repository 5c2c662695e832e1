import type { Logger } from 'pino';
import type { DatabasePool } from 'slonik';
import {
  claimDueMessages,
  markMessageDead,
  markMessageSent,
  scheduleMessageRetry,
  type ClaimedMessage,
} from '../../../sql/notification-outbox.ts';
import type { Keyring } from '../../crypto/credentials.ts';
import { maskRecipient } from '../mask.ts';
import { openMessageBody } from '../sealing.ts';
import { retryDelayMs, type BackoffOptions } from './backoff.ts';
import { DeliveryError } from './sender.ts';
import type { Senders } from './senders.ts';

export type OutboxWorkerOptions = BackoffOptions & {
  db: DatabasePool;
  keyring: Keyring;
  senders: Senders;
  logger: Logger;
  /** The current instant; injected so tests control time. Default: the system clock. */
  clock?: () => Date;
  /** Messages claimed per round. Default 10. */
  batchSize?: number;
  /** Attempts before a message is dead-lettered. Default 8. */
  maxAttempts?: number;
  /**
   * How long a claim lasts, in milliseconds: a message whose worker died mid-send is claimed
   * again (and sent again, with the same idempotency key) after it. Must exceed the senders'
   * timeouts. Default 60 000.
   */
  leaseMs?: number;
  /** Wait between rounds that found nothing due, in milliseconds. Default 1 000. */
  pollIntervalMs?: number;
};

export type RoundResult = { sent: number; retried: number; dead: number };

/**
 * Delivers the notification outbox (ADR 0080): claims due messages (several workers, in one
 * process or many, never claim the same one), opens each sealed body, hands it to the sender
 * of its channel, then records the outcome. At least once: a worker that dies between the
 * provider's acceptance and the `sent` mark leaves the message to be sent again after its
 * lease, with the same Message-ID / Idempotency-Key.
 */
export class OutboxWorker {
  readonly #options: OutboxWorkerOptions;
  readonly #clock: () => Date;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = true;

  constructor(options: OutboxWorkerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? (() => new Date());
  }

  /** Polls until `stop()`. Rounds never overlap within one worker. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Stops polling and waits for the round in progress, if any. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
  }

  /** Claims and delivers one batch of due messages. */
  async runOnce(): Promise<RoundResult> {
    const o = this.#options;
    const now = this.#clock();
    const channels = (['email', 'sms'] as const).filter((channel) => o.senders[channel] !== undefined);
    const result: RoundResult = { sent: 0, retried: 0, dead: 0 };
    // A channel without a sender here is not claimed: its messages wait for a worker that has one.
    if (channels.length === 0) return result;
    const claimed = await claimDueMessages(o.db, {
      now,
      leaseUntil: new Date(now.getTime() + (o.leaseMs ?? 60_000)),
      limit: o.batchSize ?? 10,
      channels,
    });
    for (const message of claimed) result[await this.#deliver(message)] += 1;
    return result;
  }

  /** Runs rounds until nothing is due (what the CLI's `outbox deliver` does). */
  async drain(): Promise<RoundResult> {
    const total: RoundResult = { sent: 0, retried: 0, dead: 0 };
    for (;;) {
      const round = await this.runOnce();
      for (const key of Object.keys(total) as (keyof RoundResult)[]) total[key] += round[key];
      if (round.sent + round.retried + round.dead === 0) return total;
    }
  }

  async #deliver(message: ClaimedMessage): Promise<keyof RoundResult> {
    const o = this.#options;
    const log = {
      messageId: message.id,
      channel: message.channel,
      template: message.template,
      to: maskRecipient(message.recipient),
      attempt: message.attempts,
    };
    const sender = o.senders[message.channel]!;
    let body;
    try {
      body = openMessageBody(o.keyring, message.id, message.sealedBody);
    } catch {
      await markMessageDead(o.db, message.id, this.#clock(), 'sealed body does not open (unknown key or tampered row)');
      o.logger.error(log, 'notification dead-lettered: its body does not open');
      return 'dead';
    }
    try {
      await sender.send({
        id: message.id,
        channel: message.channel,
        to: message.recipient,
        template: message.template,
        subject: body.subject,
        text: body.text,
      });
    } catch (error) {
      const reason = error instanceof DeliveryError ? error : new DeliveryError(`${sender.name}: unexpected failure`, false);
      const now = this.#clock();
      if (reason.permanent || message.attempts >= (o.maxAttempts ?? 8)) {
        await markMessageDead(o.db, message.id, now, reason.message);
        o.logger.error({ ...log, error: reason.message }, 'notification dead-lettered');
        return 'dead';
      }
      const next = new Date(now.getTime() + retryDelayMs(message.attempts, o));
      await scheduleMessageRetry(o.db, message.id, next, reason.message);
      o.logger.warn({ ...log, error: reason.message, nextAttemptAt: next.toJSON() }, 'notification delivery failed; will retry');
      return 'retried';
    }
    await markMessageSent(o.db, message.id, this.#clock());
    o.logger.info({ ...log, via: sender.name }, 'notification delivered');
    return 'sent';
  }

  #schedule(delayMs: number) {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#round().finally(() => {
        this.#running = undefined;
      });
    }, delayMs);
    this.#timer.unref();
  }

  async #round() {
    let busy = false;
    try {
      const result = await this.runOnce();
      busy = result.sent + result.retried + result.dead > 0;
    } catch (error) {
      this.#options.logger.error({ err: error }, 'outbox worker round failed');
    }
    this.#schedule(busy ? 0 : (this.#options.pollIntervalMs ?? 1_000));
  }
}
