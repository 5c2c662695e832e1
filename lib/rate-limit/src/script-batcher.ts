import { createHash } from 'node:crypto';
import { keySlot } from './key-slot.ts';
import { SLIDING_LOG_BATCH_SCRIPT, SLIDING_LOG_NODE_BATCH_SCRIPT, SLIDING_LOG_SCRIPT } from './lua.ts';
import type { TimeoutQueue } from './timeout-queue.ts';
import type { RedisScriptClient } from './redis-script-client.ts';
import type { Clock } from './types.ts';

interface Pending {
  readonly redisKey: string;
  readonly windowMs: number;
  readonly limit: number;
  readonly cost: number;
  readonly resolve: (reply: unknown) => void;
  readonly reject: (error: unknown) => void;
}

interface Script {
  readonly script: string;
  readonly sha: string;
}

const script = (text: string): Script => ({ script: text, sha: createHash('sha1').update(text).digest('hex') });
const SINGLE = script(SLIDING_LOG_SCRIPT);
const BATCH = script(SLIDING_LOG_BATCH_SCRIPT);
const NODE_BATCH = script(SLIDING_LOG_NODE_BATCH_SCRIPT);
/**
 * Checks per script call at most. Under load a tick's checks leave as several pipelined calls, so Redis runs one
 * while the client still settles the replies of another and issues the next checks: at c=64 on 2 cores, 16 gave
 * 76,000-86,000 checks/s (8, 16 and 32 alike) against 55,000 for 128, where one call per tick made the client and
 * Redis wait for each other (ADR 0054). It also keeps one call short (Redis runs nothing else meanwhile).
 */
const MAX_BATCH = 16;
/** The queue of a lone server (a Cluster has one per master, named by its "host:port"). */
const LONE = '';

/** The slot map of an ioredis `Cluster`: slot -> node keys ("host:port"), master first. */
interface ClusterSlots {
  readonly isCluster: true;
  readonly slots: ReadonlyArray<readonly string[] | undefined>;
}

/**
 * Sends the sliding-log checks issued in one tick of the event loop as few script calls (ADR 0054, ADR 0150).
 *
 * Invariants:
 * - a batch is flushed on `process.nextTick`, i.e. once the current job and its promise reactions are done,
 *   so a check waits for no timer and no I/O before it is sent; on a cluster on `setImmediate`, once the
 *   I/O callbacks of this loop iteration are done (a check waits for no timer, only for replies already read);
 * - the script runs a batch's checks in arrival order, atomically, so the result is the one of sending them
 *   one by one;
 * - on Redis Cluster the checks are queued per master (the owner of the key's slot in ioredis's slot map) and
 *   a batch goes out as one call of {@link SLIDING_LOG_NODE_BATCH_SCRIPT}, routed by its first key; a check
 *   whose key the node turns out not to serve ran nothing there and is sent again alone, which ioredis routes
 *   (following MOVED); a key of a slot with no known owner is sent alone at once;
 * - a lone check uses the single-check script, whose reply is flat; a failure rejects every check of its batch.
 */
export class ScriptBatcher {
  readonly #redis: RedisScriptClient;
  readonly #timeouts: TimeoutQueue;
  readonly #clock: Clock | undefined;
  readonly #cluster: ClusterSlots | undefined;
  /** Pending checks per destination: {@link LONE}, or a cluster master's node key. */
  readonly #queues = new Map<string, Pending[]>();
  #scheduled = false;
  /** Set when the cluster refused the node-batch script (Redis < 7.0): from then on every check goes alone. */
  #alone = false;

  constructor(redis: RedisScriptClient, timeouts: TimeoutQueue, clock: Clock | undefined) {
    this.#redis = redis;
    this.#timeouts = timeouts;
    this.#clock = clock;
    const cluster = redis as Partial<ClusterSlots>;
    this.#cluster = cluster.isCluster === true ? (cluster as ClusterSlots) : undefined;
  }

  /** The raw script reply of one check. */
  run(redisKey: string, windowMs: number, limit: number, cost: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const pending: Pending = { redisKey, windowMs, limit, cost, resolve, reject };
      const cluster = this.#alone ? undefined : this.#cluster;
      const destination = cluster === undefined ? (this.#alone ? undefined : LONE) : cluster.slots[keySlot(redisKey)]?.[0];
      if (destination === undefined) return this.#send([pending], LONE);
      const queue = this.#queues.get(destination);
      if (queue === undefined) this.#queues.set(destination, [pending]);
      else if (queue.push(pending) >= MAX_BATCH) {
        this.#queues.delete(destination);
        this.#send(queue, destination);
      }
      if (!this.#scheduled) {
        this.#scheduled = true;
        // A lone server: at the end of this job (ADR 0054). A cluster: after the poll phase, so the checks that
        // the replies of all masters set off, read in one phase, share calls (ADR 0150).
        if (this.#cluster === undefined) process.nextTick(this.#flush);
        else setImmediate(this.#flush);
      }
    });
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    for (const [destination, queue] of this.#queues) this.#send(queue, destination);
    this.#queues.clear();
  };

  #send(batch: Pending[], destination: string): void {
    const one = batch.length === 1 ? batch[0] : undefined;
    if (one !== undefined) return this.#call(SINGLE, [one.redisKey], [one.windowMs, one.limit, one.cost], batch);
    const nodeBatch = destination !== LONE;
    const perCheck = nodeBatch ? 4 : 3;
    const args = new Array<string | number>(batch.length * perCheck);
    const keys = nodeBatch ? [(batch[0] as Pending).redisKey] : new Array<string>(batch.length);
    for (let i = 0, a = 0; i < batch.length; i++) {
      const p = batch[i] as Pending;
      if (nodeBatch) args[a++] = p.redisKey;
      else keys[i] = p.redisKey;
      args[a++] = p.windowMs;
      args[a++] = p.limit;
      args[a++] = p.cost;
    }
    this.#call(nodeBatch ? NODE_BATCH : BATCH, keys, args, batch);
  }

  #call(which: Script, keys: string[], args: Array<string | number>, batch: Pending[]): void {
    const now = this.#clock?.();
    if (now !== undefined) args.push(now);
    const settle = (reply: unknown) => {
      if (which === SINGLE) return (batch[0] as Pending).resolve(reply);
      if (!Array.isArray(reply) || reply.length !== batch.length) {
        const error = new Error(`unexpected rate-limit batch reply: ${JSON.stringify(reply)}`);
        for (const p of batch) p.reject(error);
        return;
      }
      for (let i = 0; i < batch.length; i++) {
        const p = batch[i] as Pending;
        const answer: unknown = reply[i];
        // { -1 }: the node does not serve this key (see SLIDING_LOG_NODE_BATCH_SCRIPT); nothing ran for it.
        if (Array.isArray(answer) && answer.length === 1 && answer[0] === -1) this.#send([p], LONE);
        else p.resolve(answer);
      }
    };
    const fail = (error: unknown) => {
      if (which === NODE_BATCH && isUnknownShebang(error)) {
        // Redis < 7.0 cannot compile the flagged script, so it ran nothing: send these and later checks alone.
        this.#alone = true;
        for (const p of batch) this.#send([p], LONE);
        return;
      }
      for (const p of batch) p.reject(error);
    };
    this.#timeouts.run(this.#redis.evalsha(which.sha, keys.length, ...keys, ...args)).then(settle, (error: unknown) => {
      if (!isNoScript(error)) return fail(error);
      // EVAL runs the script and caches it, so the next EVALSHA hits (a restarted or flushed server).
      return this.#timeouts.run(this.#redis.eval(which.script, keys.length, ...keys, ...args)).then(settle, fail);
    });
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

function isUnknownShebang(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('ERR Error compiling script');
}
