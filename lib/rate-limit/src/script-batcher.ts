import { createHash } from 'node:crypto';
import { SLIDING_LOG_BATCH_SCRIPT, SLIDING_LOG_SCRIPT } from './lua.ts';
import type { RedisScriptClient } from './redis-store.ts';
import type { TimeoutQueue } from './timeout-queue.ts';
import type { Clock } from './types.ts';

interface Pending {
  readonly redisKey: string;
  readonly windowMs: number;
  readonly limit: number;
  readonly cost: number;
  readonly resolve: (reply: unknown) => void;
  readonly reject: (error: unknown) => void;
}

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
const SINGLE = { script: SLIDING_LOG_SCRIPT, sha: sha1(SLIDING_LOG_SCRIPT) };
const BATCH = { script: SLIDING_LOG_BATCH_SCRIPT, sha: sha1(SLIDING_LOG_BATCH_SCRIPT) };
/**
 * Checks per script call at most. Under load a tick's checks leave as several pipelined calls, so Redis runs one
 * while the client still settles the replies of another and issues the next checks: at c=64 on 2 cores, 16 gave
 * 76,000-86,000 checks/s (8, 16 and 32 alike) against 55,000 for 128, where one call per tick made the client and
 * Redis wait for each other (ADR 0054). It also keeps one call short (Redis runs nothing else meanwhile).
 */
const MAX_BATCH = 16;

/**
 * Sends the sliding-log checks issued in one tick of the event loop as one script call (ADR 0054).
 *
 * Invariants:
 * - a batch is flushed on `process.nextTick`, i.e. once the current job and its promise reactions are done,
 *   so a check waits for no timer and no I/O before it is sent;
 * - the script runs a batch's checks in arrival order, atomically, so the result is the one of sending them
 *   one by one;
 * - on Redis Cluster a script may only touch keys of one hash slot, and checks of different limiter keys rarely
 *   share one, so there every check is sent alone, at once (grouping by slot was measured: no batches formed,
 *   only overhead);
 * - a lone check uses the single-check script, whose reply is flat; a failure rejects every check of its batch.
 */
export class ScriptBatcher {
  readonly #redis: RedisScriptClient;
  readonly #timeouts: TimeoutQueue;
  readonly #clock: Clock | undefined;
  /** On a Cluster every check is sent alone (see the class comment). */
  readonly #direct: boolean;
  #batch: Pending[] = [];
  #scheduled = false;

  constructor(redis: RedisScriptClient, timeouts: TimeoutQueue, clock: Clock | undefined) {
    this.#redis = redis;
    this.#timeouts = timeouts;
    this.#clock = clock;
    this.#direct = (redis as { isCluster?: unknown }).isCluster === true;
  }

  /** The raw script reply of one check. */
  run(redisKey: string, windowMs: number, limit: number, cost: number): Promise<unknown> {
    if (this.#direct) return new Promise((resolve, reject) => this.#send([{ redisKey, windowMs, limit, cost, resolve, reject }]));
    return new Promise((resolve, reject) => {
      this.#batch.push({ redisKey, windowMs, limit, cost, resolve, reject });
      if (this.#batch.length >= MAX_BATCH) {
        const full = this.#batch;
        this.#batch = [];
        this.#send(full);
      }
      if (!this.#scheduled) {
        this.#scheduled = true;
        process.nextTick(this.#flush);
      }
    });
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const batch = this.#batch;
    this.#batch = [];
    if (batch.length > 0) this.#send(batch);
  };

  #send(batch: Pending[]): void {
    const now = this.#clock?.();
    const one = batch.length === 1 ? batch[0] : undefined;
    let keys: string[];
    let args: Array<string | number>;
    if (one !== undefined) {
      keys = [one.redisKey];
      args = [one.windowMs, one.limit, one.cost];
    } else {
      keys = new Array<string>(batch.length);
      args = new Array<number>(batch.length * 3);
      for (let i = 0; i < batch.length; i++) {
        const p = batch[i] as Pending;
        keys[i] = p.redisKey;
        args[i * 3] = p.windowMs;
        args[i * 3 + 1] = p.limit;
        args[i * 3 + 2] = p.cost;
      }
    }
    if (now !== undefined) args.push(now);
    const script = one === undefined ? BATCH : SINGLE;
    const settle = (reply: unknown) => {
      if (one !== undefined) return one.resolve(reply);
      if (!Array.isArray(reply) || reply.length !== batch.length) {
        const error = new Error(`unexpected rate-limit batch reply: ${JSON.stringify(reply)}`);
        for (const p of batch) p.reject(error);
        return;
      }
      for (let i = 0; i < batch.length; i++) (batch[i] as Pending).resolve(reply[i]);
    };
    const fail = (error: unknown) => {
      for (const p of batch) p.reject(error);
    };
    this.#timeouts.run(this.#redis.evalsha(script.sha, keys.length, ...keys, ...args)).then(settle, (error: unknown) => {
      if (!isNoScript(error)) return fail(error);
      // EVAL runs the script and caches it, so the next EVALSHA hits (a restarted or flushed server).
      return this.#timeouts.run(this.#redis.eval(script.script, keys.length, ...keys, ...args)).then(settle, fail);
    });
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
