import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createResumableStreamContext, type Publisher, type ResumableStreamContext, type Subscriber } from 'resumable-stream/generic';

/*
 * How a running turn's stream is shared: on its own instance by its `TurnTape` (the events kept
 * from the first chunk, at the end of this file), and with the others through Redis
 * (`turnStreams`, the resumable layer).
 */

/** Key prefix of the turns' streams in Redis (`chat-turn:rs:sentinel:<turnId>`, `...:request:...`, `...:chunk:...`). */
const KEY_PREFIX = 'chat-turn';

/**
 * The resumable layer of running turns: the `resumable-stream` package over the service's Redis
 * (any instance resumes a turn that runs on another), or over an in-process stand-in without
 * `REDIS_URL`. The producing instance keeps a turn's chunks in its own memory; Redis carries only
 * a sentinel per turn (`1` while it runs, `DONE` for 24 hours after) and, when someone resumes,
 * the chunks published to that listener. Two contexts share one subscriber connection:
 * - `producer`: its publisher never throws (a failure is logged once per turn), because the
 *   package's producer loop stops reading at the first rejected publish, and a turn must not
 *   depend on Redis to finish (docs/chat.md, "Faults");
 * - `resumer`: publish and subscribe failures propagate (the resume route answers 503 while
 *   Redis is away), but its `GET`s answer null on failure: the package also reads the sentinel
 *   from timers, where a rejection would go unhandled. `state()` is the strict read a resume
 *   starts with.
 */
export type TurnStreams = {
  producer: ResumableStreamContext;
  resumer: ResumableStreamContext;
  /** The turn's sentinel: `'1'` while its stream is shared, `'DONE'` after, null before (or expired). Throws when Redis fails. */
  state(turnId: string): Promise<string | null>;
  subscriber: Subscriber;
  publisher: Publisher;
  /** Whether the subscriber connection is up (always, in memory): a turn started now can be shared. */
  ready(): boolean;
  close(): Promise<void>;
};

export function turnStreams(redis: Redis | undefined, logger: Logger): TurnStreams {
  if (!redis) {
    const memory = new MemoryPubSub();
    return contexts(
      memory,
      memory,
      logger,
      () => true,
      async () => {},
    );
  }
  // A connection of its own: a Redis connection in subscriber mode runs no other command. Its
  // commands wait while it (re)connects, for one attempt at most (then they fail: resume answers 503).
  const connection = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: 1 });
  connection.on('error', () => {});
  const publisher: Publisher = {
    connect: async () => {},
    publish: (channel, message) => redis.publish(channel, message),
    set: (key, value, options) => (options?.EX ? redis.set(key, value, 'EX', options.EX) : redis.set(key, value)),
    get: (key) => redis.get(key),
    incr: (key) => redis.incr(key),
  };
  const handlers = new Map<string, (message: string) => void>();
  connection.on('message', (channel: string, message: string) => handlers.get(channel)?.(message));
  const subscriber: Subscriber = {
    connect: async () => {},
    subscribe: async (channel, callback) => {
      handlers.set(channel, callback);
      await connection.subscribe(channel);
    },
    // Never throws: the package unsubscribes where a rejection would go unhandled, and a
    // connection that is down has no subscription left to end.
    unsubscribe: async (channel) => {
      handlers.delete(channel);
      return connection.unsubscribe(channel).catch(() => 0);
    },
  };
  return contexts(
    publisher,
    subscriber,
    logger,
    () => connection.status === 'ready',
    async () => {
      connection.disconnect();
    },
  );
}

function contexts(
  publisher: Publisher,
  subscriber: Subscriber,
  logger: Logger,
  ready: () => boolean,
  close: () => Promise<void>,
): TurnStreams {
  let warned = false;
  const tolerant =
    <A extends unknown[], R>(run: (...args: A) => Promise<R>, fallback: R) =>
    async (...args: A): Promise<R> => {
      try {
        return await run(...args);
      } catch (error) {
        if (!warned) logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'chat: turn stream not shared (Redis)');
        warned = true;
        return fallback;
      }
    };
  const forgiving: Publisher = {
    connect: async () => {},
    publish: tolerant((channel: string, message: string) => publisher.publish(channel, message), 0),
    set: tolerant((key: string, value: string, options?: { EX?: number }) => publisher.set(key, value, options), 'OK'),
    get: (key) => publisher.get(key),
    incr: (key) => publisher.incr(key),
  };
  const readsForgiven: Publisher = { ...publisher, get: (key) => Promise.resolve(publisher.get(key)).catch(() => null) };
  const common = { keyPrefix: KEY_PREFIX, waitUntil: null, subscriber };
  return {
    producer: createResumableStreamContext({ ...common, publisher: forgiving }),
    resumer: createResumableStreamContext({ ...common, publisher: readsForgiven }),
    state: async (turnId) => {
      const value = await publisher.get(`${KEY_PREFIX}:rs:sentinel:${turnId}`);
      return value === null ? null : String(value);
    },
    subscriber,
    publisher,
    ready,
    close,
  };
}

/** Publisher and subscriber in one process: what one instance without Redis needs. Keys expire like Redis's. */
class MemoryPubSub implements Publisher, Subscriber {
  #values = new Map<string, { value: string; expiresAt: number }>();
  #channels = new EventEmitter().setMaxListeners(0);
  #listeners = new Map<string, (message: string) => void>();

  connect = async () => {};

  publish = async (channel: string, message: string) => {
    const count = this.#channels.listenerCount(channel);
    // Delivered after the publish returns, as a Redis subscriber would see it.
    queueMicrotask(() => this.#channels.emit(channel, message));
    return count;
  };

  set = async (key: string, value: string, options?: { EX?: number }) => {
    this.#sweep();
    this.#values.delete(key);
    this.#values.set(key, { value, expiresAt: options?.EX ? Date.now() + options.EX * 1000 : Infinity });
    return 'OK';
  };

  get = async (key: string) => {
    const entry = this.#values.get(key);
    return entry && entry.expiresAt > Date.now() ? entry.value : null;
  };

  incr = async (key: string) => {
    const current = await this.get(key);
    const next = Number(current ?? 0) + 1;
    if (!Number.isInteger(next)) throw new Error('ERR value is not an integer or out of range');
    const expiresAt = this.#values.get(key)?.expiresAt ?? Infinity;
    this.#values.set(key, { value: String(next), expiresAt });
    return next;
  };

  subscribe = async (channel: string, callback: (message: string) => void) => {
    this.#listeners.set(channel, callback);
    this.#channels.on(channel, callback);
  };

  unsubscribe = async (channel: string) => {
    const callback = this.#listeners.get(channel);
    if (callback) this.#channels.off(channel, callback);
    this.#listeners.delete(channel);
  };

  /** Drops expired keys from the front (keys are kept in the order they were last set). */
  #sweep() {
    const now = Date.now();
    for (const [key, entry] of this.#values) {
      if (entry.expiresAt === Infinity || entry.expiresAt > now) break;
      this.#values.delete(key);
    }
  }
}

/**
 * The server-sent events of one running turn, kept from its first chunk: the turn appends, and
 * any number of readers (the POST that started it, the resumable layer) read from the start, then
 * live, until it closes. Readers only read: one that goes away never slows or stops the turn.
 */
export class TurnTape {
  #events: string[] = [];
  #closed = false;
  #waiting: (() => void)[] = [];

  push(event: string): void {
    if (this.#closed) return;
    this.#events.push(event);
    this.#wake();
  }

  close(): void {
    this.#closed = true;
    this.#wake();
  }

  async *read(): AsyncGenerator<string> {
    let next = 0;
    for (;;) {
      while (next < this.#events.length) yield this.#events[next++]!;
      if (this.#closed) return;
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }

  /** `read()` as a web stream (what the resumable layer takes). */
  stream(): ReadableStream<string> {
    const events = this.read();
    return new ReadableStream<string>({
      async pull(controller) {
        const { done, value } = await events.next();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      async cancel() {
        await events.return(undefined);
      },
    });
  }

  #wake() {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}
