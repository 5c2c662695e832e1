import type { Logger } from 'pino';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import {
  claimDueMessages,
  deleteOutboxMessage,
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

/**
 * Work queued through the outbox (ADR 0114): a row whose template names a job is not sent; the
 * job runs with the row's recipient and opened text, inside a transaction that also deletes the
 * row, so its effects (e.g. a new message) commit exactly once.
 */
export type OutboxJob = (tx: CommonQueryMethods, job: { recipient: string; payload: string }) => Promise<void>;

/** Templates of queued work start with this; such a row is never handed to a sender. */
export const JOB_TEMPLATE_PREFIX = 'job:';

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
  /** The jobs this worker runs, by template (`job:…`). A job row without one waits for a worker that has it. */
  jobs?: Record<string, OutboxJob>;
};

export type RoundResult = { sent: number; retried: number; dead: number; jobs: number };

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
    const result: RoundResult = { sent: 0, retried: 0, dead: 0, jobs: 0 };
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
    const total: RoundResult = { sent: 0, retried: 0, dead: 0, jobs: 0 };
    for (;;) {
      const round = await this.runOnce();
      for (const key of Object.keys(total) as (keyof RoundResult)[]) total[key] += round[key];
      if (round.sent + round.retried + round.dead + round.jobs === 0) return total;
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
    let body;
    try {
      body = openMessageBody(o.keyring, message.id, message.sealedBody);
    } catch {
      await markMessageDead(o.db, message.id, this.#clock(), 'sealed body does not open (unknown key or tampered row)');
      o.logger.error(log, 'notification dead-lettered: its body does not open');
      return 'dead';
    }
    if (message.template.startsWith(JOB_TEMPLATE_PREFIX)) return this.#runJob(message, body.text, log);
    const sender = o.senders[message.channel]!;
    try {
      await sender.send({
        id: message.id,
        channel: message.channel,
        to: message.recipient,
        template: message.template,
        subject: body.subject,
        text: body.text,
        ...(body.replyTo ? { replyTo: body.replyTo } : {}),
        ...(body.fromName ? { fromName: body.fromName } : {}),
      });
    } catch (error) {
      return this.#failed(
        message,
        error instanceof DeliveryError ? error : new DeliveryError(`${sender.name}: unexpected failure`, false),
        log,
      );
    }
    await markMessageSent(o.db, message.id, this.#clock());
    o.logger.info({ ...log, via: sender.name }, 'notification delivered');
    return 'sent';
  }

  async #runJob(message: ClaimedMessage, payload: string, log: Record<string, unknown>): Promise<keyof RoundResult> {
    const o = this.#options;
    const job = o.jobs?.[message.template];
    if (!job) return this.#failed(message, new DeliveryError(`no worker here runs ${message.template}`, false), log);
    try {
      await o.db.transaction(async (tx) => {
        await job(tx, { recipient: message.recipient, payload });
        await deleteOutboxMessage(tx, message.id);
      });
    } catch (error) {
      o.logger.error({ ...log, error: error instanceof Error ? error.message : 'unknown' }, 'queued job failed');
      return this.#failed(message, new DeliveryError(`${message.template}: failed`, false), log);
    }
    o.logger.info(log, 'queued job done');
    return 'jobs';
  }

  /** A failed attempt: retried with backoff, or dead-lettered when permanent or out of attempts. */
  async #failed(message: ClaimedMessage, reason: DeliveryError, log: Record<string, unknown>): Promise<keyof RoundResult> {
    const o = this.#options;
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
      busy = result.sent + result.retried + result.dead + result.jobs > 0;
    } catch (error) {
      this.#options.logger.error({ err: error }, 'outbox worker round failed');
    }
    this.#schedule(busy ? 0 : (this.#options.pollIntervalMs ?? 1_000));
  }
}
