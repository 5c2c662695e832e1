import type { UIMessageChunk } from 'ai';
import type { FragmentSqlToken } from 'slonik';
import { deleteTurn, endTurn, renewLeases, turnEndWrite, turnHasEnded, type TurnOutcome } from '../../sql/chat-turns.ts';
import type { AppDeps } from '../core/deps.ts';
import { every, pause, whileRunning, within } from './turn-waits.ts';
import { TurnTape, turnStreams, type TurnStreams } from './turn-streams.ts';

/** How long a running turn's row stays claimed without its instance renewing it (an instance that died frees it then). */
export const TURN_LEASE_MS = 30_000;
const RENEW_EVERY_MS = 10_000;
/** Redis channel on which the stop route reaches the instance that runs a turn. */
const STOP_CHANNEL = 'chat-turn:stop';
/** Redis channel on which the instance that ran a turn says it ended (its answer saved). */
const ENDED_CHANNEL = 'chat-turn:ended';
/** How often a resume looks again for a just-claimed turn's shared stream. */
const SHARE_LOOK_MS = 20;
/** Longest wait of a resume for a just-claimed turn to start streaming. */
const SHARE_WAIT_MS = 5_000;
/** Longest wait of the stop route (and of shutdown, after its grace) for a stopped turn to be saved. */
const SAVE_WAIT_MS = 10_000;

/**
 * Why a turn was stopped before its end: the abort reason of its signal. Named `AbortError`, as
 * the AI SDK recognizes an abort by name: the model stream then ends as aborted, not failed.
 */
export class TurnEnd extends Error {
  override name = 'AbortError';
  readonly outcome: Extract<TurnOutcome, 'stopped' | 'timed_out' | 'shutdown'>;
  constructor(outcome: TurnEnd['outcome'], message: string) {
    super(message);
    this.outcome = outcome;
  }
}

/**
 * How a turn's end is written with its answer (app/chat/turn.ts): `write()` is the CTE that ends
 * it with its outcome so far, for the answer's statement; `written()` says that statement
 * committed, so the turn's drive writes no end of its own (it still does when the answer's
 * statement failed or never ran: a guardrail's refusal, a turn that failed).
 */
export type TurnEnding = { write(): FragmentSqlToken; written(): void };

/** What a turn's signal says of its end: `finished`, or why it was stopped. */
const outcomeOf = (signal: AbortSignal): TurnOutcome => {
  const reason: unknown = signal.reason;
  return signal.aborted ? (reason instanceof TurnEnd ? reason.outcome : 'stopped') : 'finished';
};

/** A turn this instance runs: its signal ends the provider request and tool calls (stop, deadline, shutdown). */
export type TurnHandle = {
  id: string;
  signal: AbortSignal;
  ending: TurnEnding;
  /** Runs the turn to its end whoever reads; returns its server-sent events from the first. */
  run(chunks: ReadableStream<UIMessageChunk>): AsyncGenerator<string>;
  /** The turn never started (a check failed): its claim is removed. */
  abandon(): Promise<void>;
};

type Running = { controller: AbortController; tape?: TurnTape; done?: Promise<void>; endWritten?: boolean };

/**
 * The turns this instance runs (docs/chat.md, "Turns that survive the client"). A turn belongs to
 * no request: it reads its own stream to the end and saves, whoever listens. Its claim in
 * PostgreSQL (sql/chat-turns.ts) is renewed while it runs and ended once its answer is saved,
 * before its stream's `[DONE]`, so a client that sends its next message on `[DONE]` is never
 * refused. One registry per app (`chatTurns(deps)`).
 */
export class ChatTurns {
  #deps: AppDeps;
  #streams: TurnStreams;
  #running = new Map<string, Running>();
  #draining = false;
  /** Stops the lease renewal; set while any turn runs here. */
  #renewal: (() => void) | undefined;
  /** Who waits here for a turn of another instance to end (`ended`), by turn. */
  #awaitingEnd = new Map<string, Set<() => void>>();

  constructor(deps: AppDeps) {
    this.#deps = deps;
    this.#streams = turnStreams(deps.redis, deps.logger);
    if (deps.redis) {
      this.#streams.subscriber
        .subscribe(STOP_CHANNEL, (turnId) => void this.#abort(turnId, new TurnEnd('stopped', 'stopped')))
        .catch((error: unknown) => deps.logger.warn({ err: String(error) }, 'chat: stop channel not subscribed'));
      this.#streams.subscriber
        .subscribe(ENDED_CHANNEL, (turnId) => this.#hasEnded(turnId))
        .catch((error: unknown) => deps.logger.warn({ err: String(error) }, 'chat: ended channel not subscribed'));
    }
  }

  /** Whether a turn started now is shared with other instances (its Redis subscriber is up). */
  get sharing(): boolean {
    return this.#streams.ready();
  }

  /** True once shutdown began: new turns go to another instance. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Registers a claimed turn and arms its deadline (`AI_TURN_TIMEOUT_MS`). */
  begin(turnId: string): TurnHandle {
    const controller = new AbortController();
    const running: Running = { controller };
    this.#running.set(turnId, running);
    this.#renewal ??= every(this.#deps.timers, RENEW_EVERY_MS, () => this.#renew());
    const limitMs = this.#deps.config.ai.turnTimeoutMs;
    const deadline = this.#deps.timers.setTimeout(() => {
      const seconds = Math.round(limitMs / 100) / 10;
      this.#abort(turnId, new TurnEnd('timed_out', `The answer took longer than the ${seconds} s limit of a turn and was stopped.`));
    }, limitMs);
    const forget = () => {
      this.#deps.timers.clearTimeout(deadline);
      this.#running.delete(turnId);
      if (this.#running.size === 0) {
        this.#renewal?.();
        this.#renewal = undefined;
      }
    };
    return {
      id: turnId,
      signal: controller.signal,
      ending: {
        write: () => turnEndWrite(turnId, outcomeOf(controller.signal), this.#deps.clock()),
        written: () => (running.endWritten = true),
      },
      run: (chunks) => {
        const tape = new TurnTape();
        running.tape = tape;
        this.#share(turnId, tape);
        running.done = this.#drive(turnId, chunks, tape, running).finally(forget);
        return tape.read();
      },
      abandon: async () => {
        forget();
        await deleteTurn(this.#deps.db, turnId);
      },
    };
  }

  /** Reads the turn to its end into the tape, then ends its claim (unless its answer's statement did), then `[DONE]`. */
  async #drive(turnId: string, chunks: ReadableStream<UIMessageChunk>, tape: TurnTape, running: Running) {
    const deps = this.#deps;
    try {
      for await (const chunk of chunks) tape.push(`data: ${JSON.stringify(chunk)}\n\n`);
    } catch (error) {
      deps.logger.error({ turnId, err: error instanceof Error ? error.message : String(error) }, 'chat turn stream failed');
    }
    try {
      if (!running.endWritten) await endTurn(deps.db, turnId, outcomeOf(running.controller.signal), deps.clock());
    } catch (error) {
      // The lease runs out instead: the conversation is free again within TURN_LEASE_MS.
      deps.logger.warn({ turnId, err: error instanceof Error ? error.message : String(error) }, 'chat turn end not recorded');
    }
    this.#hasEnded(turnId);
    deps.redis?.publish(ENDED_CHANNEL, turnId).catch(() => {});
    tape.push('data: [DONE]\n\n');
    tape.close();
  }

  #hasEnded(turnId: string) {
    for (const resolve of this.#awaitingEnd.get(turnId) ?? []) resolve();
    this.#awaitingEnd.delete(turnId);
  }

  /**
   * Waits, at most `ms` on the app's timers, for the turn `turnId` to end wherever it runs (here:
   * its drive; on another instance: its message on the ended channel, or the lease of a dead one
   * run out, read once before the wait). Answers whether it ended.
   */
  async ended(turnId: string, ms: number): Promise<boolean> {
    const here = this.#running.get(turnId);
    if (here) {
      await within(this.#deps.timers, here.done ?? Promise.resolve(), ms);
      return !this.#running.has(turnId);
    }
    let done = false;
    let wake!: () => void;
    const told = new Promise<void>((resolve) => (wake = resolve));
    const settle = () => {
      done = true;
      wake();
    };
    const waiting = this.#awaitingEnd.get(turnId) ?? new Set();
    waiting.add(settle);
    this.#awaitingEnd.set(turnId, waiting);
    try {
      if (await turnHasEnded(this.#deps.db, turnId)) return true;
      await within(this.#deps.timers, told, ms);
      return done || (await turnHasEnded(this.#deps.db, turnId));
    } finally {
      waiting.delete(settle);
      if (waiting.size === 0 && this.#awaitingEnd.get(turnId) === waiting) this.#awaitingEnd.delete(turnId);
    }
  }

  /** Offers the turn's stream to other instances (best effort: a Redis failure only makes it unresumable elsewhere). */
  #share(turnId: string, tape: TurnTape) {
    this.#streams.producer
      .createNewResumableStream(turnId, () => tape.stream())
      .then((shared) => void shared?.cancel())
      .catch((error: unknown) =>
        this.#deps.logger.warn({ turnId, err: error instanceof Error ? error.message : String(error) }, 'chat: turn stream not shared'),
      );
  }

  #abort(turnId: string, reason: TurnEnd): Running | undefined {
    const running = this.#running.get(turnId);
    if (running && !running.controller.signal.aborted) running.controller.abort(reason);
    return running;
  }

  async #renew() {
    try {
      await renewLeases(this.#deps.db, [...this.#running.keys()], TURN_LEASE_MS);
    } catch (error) {
      this.#deps.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'chat: turn leases not renewed');
    }
  }

  /**
   * Stops a running turn wherever it runs (here, or through Redis on the instance that runs it)
   * and waits, up to SAVE_WAIT_MS, for its answer so far to be saved.
   */
  async stop(turnId: string): Promise<void> {
    const local = this.#abort(turnId, new TurnEnd('stopped', 'stopped'));
    if (!local && this.#deps.redis) {
      await this.#deps.redis
        .publish(STOP_CHANNEL, turnId)
        .catch((error: unknown) => this.#deps.logger.warn({ turnId, err: String(error) }, 'chat: stop not sent (Redis)'));
    }
    await this.ended(turnId, SAVE_WAIT_MS);
  }

  /**
   * The stream of a running turn from its first event: read here when it runs here, else through
   * the resumable layer. null when it has ended (or never started streaming in SHARE_WAIT_MS).
   * Throws when the resumable layer fails (Redis away): the route answers 503.
   */
  async resume(turnId: string): Promise<AsyncGenerator<string> | null> {
    const here = this.#running.get(turnId);
    if (here?.tape) return here.tape.read();
    const until = this.#deps.clock().getTime() + SHARE_WAIT_MS;
    for (;;) {
      const local = this.#running.get(turnId)?.tape;
      if (local) return local.read();
      const state = await this.#streams.state(turnId);
      if (state === 'DONE') return null;
      if (state !== null) {
        const stream = await this.#streams.resumer.resumeExistingStream(turnId);
        if (stream) return whileRunning(this.#deps.timers, stream, () => turnHasEnded(this.#deps.db, turnId));
        if (stream === null) return null;
      }
      if (this.#deps.clock().getTime() > until || (await turnHasEnded(this.#deps.db, turnId))) return null;
      await pause(this.#deps.timers, SHARE_LOOK_MS);
    }
  }

  /**
   * Shutdown (SIGTERM): takes no new turn, lets running ones finish for `graceMs`, then stops the
   * rest as the stop route does and waits for their answers to be saved. True when it stopped some.
   */
  async drain(graceMs: number): Promise<boolean> {
    this.#draining = true;
    const all = () => Promise.all([...this.#running.values()].map((running) => running.done));
    await within(this.#deps.timers, all(), graceMs);
    if (this.#running.size === 0) return false;
    for (const turnId of this.#running.keys())
      this.#abort(turnId, new TurnEnd('shutdown', 'The service shut down during this answer; it was stopped and saved.'));
    await within(this.#deps.timers, all(), SAVE_WAIT_MS);
    return true;
  }

  async close(): Promise<void> {
    this.#renewal?.();
    await this.#streams.close();
  }
}

const registries = new WeakMap<AppDeps, ChatTurns>();

/** The app's turn registry, made on first use. */
export function chatTurns(deps: AppDeps): ChatTurns {
  let turns = registries.get(deps);
  if (!turns) {
    turns = new ChatTurns(deps);
    registries.set(deps, turns);
  }
  return turns;
}
