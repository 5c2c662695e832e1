import { listAgentServerConnections } from '../../sql/agent-mcp-server-connections.ts';
import {
  claimRun,
  endRun,
  insertCaseResult,
  releaseRun,
  renewRunLeases,
  type CaseResult,
  type ClaimedRun,
  type RunCase,
} from '../../sql/agent-evaluations.ts';
import { findModelPrices, type ModelPrices } from '../../sql/agent-evaluations.ts';
import { findProviderKey, type ProviderKeyRow } from '../../sql/provider-keys.ts';
import type { AppDeps } from '../core/deps.ts';
import { answerCase, evaluationTools, type MeteredUsage, type RunOwner } from './case-run.ts';
import { judgeAnswer, unmetExpectations } from './judging.ts';

/*
 * The runs of evaluations this instance works on (docs/evaluations.md, "Runs"). A run is a job in
 * PostgreSQL (sql/agent-evaluations.ts): the instance that takes a run's POST claims it at once;
 * any instance's sweep claims a run whose lease has passed (its instance stopped) and goes on
 * with the cases that have no result yet. A run claimed more than `MAX_CLAIMS` times ends `error`.
 */

/** How long a claimed run stays claimed without its instance renewing it. */
export const RUN_LEASE_MS = 30_000;
const RENEW_EVERY_MS = 10_000;
/** Claims of one run before it is given up (`error`): a run that stops every instance that takes it ends. */
export const MAX_CLAIMS = 3;
/** Cases of one run answered at once. */
export const CASES_AT_ONCE = 4;
/** Runs one instance works on at once; a sweep claims no more. */
const RUNS_PER_INSTANCE = 8;

export class EvaluationRuns {
  #deps: AppDeps;
  #running = new Map<string, AbortController>();
  #work = new Set<Promise<unknown>>();
  #renewal: unknown;
  #stopped = false;

  constructor(deps: AppDeps) {
    this.#deps = deps;
  }

  /** Claims the run just started and works on it in the background (another instance may have taken it: then nothing). */
  start(runId: string): void {
    this.#track(this.#claimAndRun(runId));
  }

  /** Claims runs whose lease has passed, up to this instance's share, and works on them; how many it claimed. */
  async sweep(): Promise<number> {
    let claimed = 0;
    while (!this.#stopped && this.#running.size < RUNS_PER_INSTANCE) {
      const run = this.#claimAndRun(undefined);
      this.#track(run);
      if (!(await run)) break;
      claimed += 1;
    }
    return claimed;
  }

  /** Resolves once no run is being worked on here (tests and the bench wait on it). */
  async idle(): Promise<void> {
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
  }

  /** Shutdown: stops the cases under way and gives the leases back, so another instance takes the runs over at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const controller of this.#running.values()) controller.abort(new Error('The service shut down during this case.'));
    await this.idle();
    this.#deps.timers.clearTimeout(this.#renewal);
  }

  #track(work: Promise<unknown>) {
    this.#work.add(work);
    void work.finally(() => this.#work.delete(work));
  }

  #renewLater() {
    if (this.#renewal !== undefined || this.#running.size === 0) return;
    this.#renewal = this.#deps.timers.setTimeout(() => {
      this.#renewal = undefined;
      const leaseUntil = new Date(this.#deps.clock().getTime() + RUN_LEASE_MS);
      renewRunLeases(this.#deps.db, [...this.#running.keys()], leaseUntil)
        .catch((error: unknown) => this.#deps.logger.warn({ err: String(error) }, 'evaluation run leases not renewed'))
        .finally(() => this.#renewLater());
    }, RENEW_EVERY_MS);
  }

  /** Claims a run (that one, or any due one) and runs it to its end; false when there was none to claim. */
  async #claimAndRun(runId: string | undefined): Promise<boolean> {
    const deps = this.#deps;
    if (this.#stopped) return false;
    const now = deps.clock();
    let run: ClaimedRun | null;
    try {
      run = await claimRun(deps.db, { now, leaseUntil: new Date(now.getTime() + RUN_LEASE_MS), ...(runId ? { runId } : {}) });
    } catch (error) {
      deps.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'evaluation run not claimed');
      return false;
    }
    if (!run) return false;
    if (run.claims > MAX_CLAIMS) {
      await endRun(deps.db, run.id, deps.clock(), true).catch(() => undefined);
      deps.logger.warn({ runId: run.id, claims: run.claims }, 'evaluation run given up: error');
      return true;
    }
    const controller = new AbortController();
    this.#running.set(run.id, controller);
    this.#renewLater();
    try {
      await this.#work_(run, controller.signal);
      if (controller.signal.aborted) await releaseRun(deps.db, run.id, deps.clock());
      else await endRun(deps.db, run.id, deps.clock());
    } catch (error) {
      // The lease runs out and another claim goes on (or gives the run up).
      deps.logger.error({ runId: run.id, err: error instanceof Error ? error.message : String(error) }, 'evaluation run failed');
    } finally {
      this.#running.delete(run.id);
    }
    return true;
  }

  /** The run's cases without a result, `CASES_AT_ONCE` at a time, each result written as its case ends. */
  async #work_(run: ClaimedRun, signal: AbortSignal) {
    const deps = this.#deps;
    const owner: RunOwner = { organizationId: run.organizationId, agentId: run.agentId, userId: run.createdBy };
    const judgeModel = deps.config.ai.judgeModel ?? run.definition.modelId ?? deps.config.ai.defaultModel;
    const [storedKey, servers, prices] = await Promise.all([
      findProviderKey(deps.db, run.organizationId),
      listAgentServerConnections(deps.db, { organizationId: run.organizationId, agentId: run.agentId }),
      findModelPrices(deps.db, [...new Set([run.definition.modelId ?? deps.config.ai.defaultModel, judgeModel])]),
    ]);
    const done = new Set(run.done);
    const pending = run.cases.map((testCase, position) => ({ testCase, position })).filter(({ position }) => !done.has(position));
    const context = { owner, storedKey, judgeModel, prices, run, writes: [] as Promise<void>[] };
    const tools = (calls: { toolName: string; input: unknown }[]) =>
      evaluationTools(deps, { owner, definition: run.definition, servers }, calls, signal);
    const next = async (): Promise<void> => {
      const item = pending.shift();
      if (!item || signal.aborted) return;
      const result = await this.#case(context, tools, item.testCase, signal);
      // A case stopped by shutdown has no result: the instance that takes the run over answers it again.
      if (signal.aborted) return;
      // The result is written while the next case runs; the run ends only once every write is done.
      context.writes.push(insertCaseResult(deps.db, run.id, item.position, result));
      return next();
    };
    await Promise.all(Array.from({ length: Math.min(CASES_AT_ONCE, pending.length) }, next));
    const written = await Promise.allSettled(context.writes);
    const failed = written.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** One case under the turn's deadline (`AI_TURN_TIMEOUT_MS`, armed with the app's timers): its answer, judged. */
  async #case(
    context: {
      owner: RunOwner;
      storedKey: ProviderKeyRow | null;
      judgeModel: string;
      prices: ModelPrices;
      run: ClaimedRun;
      writes: Promise<void>[];
    },
    tools: Parameters<typeof answerCase>[1]['tools'],
    testCase: RunCase,
    runSignal: AbortSignal,
  ): Promise<CaseResult> {
    const deps = this.#deps;
    const limitMs = deps.config.ai.turnTimeoutMs;
    const deadline = new AbortController();
    const timer = deps.timers.setTimeout(
      () => deadline.abort(new Error(`The case took longer than the ${Math.round(limitMs / 100) / 10} s limit of a turn and was stopped.`)),
      limitMs,
    );
    const signal = AbortSignal.any([runSignal, deadline.signal]);
    try {
      const answered = await answerCase(
        deps,
        { owner: context.owner, definition: context.run.definition, tools, writes: context.writes },
        testCase,
        context.storedKey,
        signal,
      );
      const metered: MeteredUsage[] = [...answered.metered];
      const reasons =
        answered.failure !== null ? [answered.failure] : unmetExpectations(testCase.expect, answered.answer, answered.toolCalls);
      let judge: CaseResult['judge'] = null;
      let failure = answered.failure;
      if (failure === null && testCase.expect.judge !== undefined) {
        const judged = await judgeAnswer(
          deps,
          { owner: context.owner, modelId: context.judgeModel, storedKey: context.storedKey, signal, writes: context.writes },
          testCase,
          testCase.expect.judge,
          answered.answer,
        );
        metered.push(...judged.metered);
        judge = judged.verdict;
        failure = judged.failure;
        if (judged.failure !== null) reasons.push(judged.failure);
        else if (judged.verdict && !judged.verdict.passed) reasons.push(`The judge failed the answer: ${judged.verdict.reason}`);
      }
      return {
        caseId: testCase.id,
        name: testCase.name,
        passed: reasons.length === 0,
        reasons,
        answer: answered.answer,
        toolCalls: answered.toolCalls,
        judge,
        usage: usageOf(metered, context.prices),
        error: failure !== null,
      };
    } finally {
      deps.timers.clearTimeout(timer);
    }
  }
}

/** A case's tokens and their cost at the price list's prices (a model without a price costs 0, as its usage rows do). */
function usageOf(metered: readonly MeteredUsage[], prices: ModelPrices): CaseResult['usage'] {
  let totalTokens = 0;
  let costUsd = 0;
  for (const call of metered) {
    totalTokens += call.inputTokens + call.cacheReadTokens + call.outputTokens;
    const price = prices.get(call.modelId);
    if (price)
      costUsd +=
        (call.inputTokens * price.inputUsdPerMTok +
          call.outputTokens * price.outputUsdPerMTok +
          call.cacheReadTokens * price.cacheReadUsdPerMTok) /
        1_000_000;
  }
  return { totalTokens, costUsd: Math.round(costUsd * 1e8) / 1e8 };
}

const registries = new WeakMap<AppDeps, EvaluationRuns>();

/** The app's evaluation runs, made on first use. */
export function evaluationRuns(deps: AppDeps): EvaluationRuns {
  let runs = registries.get(deps);
  if (!runs) {
    runs = new EvaluationRuns(deps);
    registries.set(deps, runs);
  }
  return runs;
}
