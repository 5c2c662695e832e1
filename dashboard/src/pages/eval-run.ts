/**
 * An evaluation run in the console (docs/evaluations.md, "Runs"): started with
 * `POST /api/ai/agents/:agentId/eval-runs` (202), then read until it ends with bounded polling,
 * and shown case by case: passed or failed, the reasons, the answer, the tool calls the model
 * made (none of them acted) and the judge's verdict. Used by the Tests page and by the agent
 * page's gated save.
 */
import type { ApiBody, ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { el, formatInteger, formatUsd } from '../format.ts';

export type Run = ApiResponse<'GET /ai/agents/:agentId/eval-runs/:runId'>;
export type RunDefinition = ApiBody<'POST /ai/agents/:agentId/eval-runs'>['definition'];
type Result = Run['results'][number];

/** The first read 400 ms after the start, each wait half as long again, at most 4 s; given up after 10 minutes. */
const FIRST_WAIT_MS = 400;
const MAX_WAIT_MS = 4_000;
const GIVE_UP_MS = 10 * 60_000;

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** Starts a run of `caseIds` (all the agent's cases when absent) on the current definition, or on `definition` tried over it. */
export async function startRun(agentId: string, definition?: RunDefinition, caseIds?: string[]): Promise<string> {
  const body = { ...(definition ? { definition } : {}), ...(caseIds ? { caseIds } : {}) };
  const started = await api<ApiResponse<'POST /ai/agents/:agentId/eval-runs'>>(`/api/ai/agents/${agentId}/eval-runs`, {
    method: 'POST',
    body,
  });
  return started.id;
}

/**
 * Reads the run until it is no longer `running`, giving each reading to `progress`. Answers the
 * last reading: still `running` when ten minutes passed or `signal` was aborted (the page left).
 */
export async function followRun(agentId: string, runId: string, signal: AbortSignal, progress: (run: Run) => void): Promise<Run> {
  const giveUpAt = Date.now() + GIVE_UP_MS;
  let wait = FIRST_WAIT_MS;
  for (;;) {
    await pause(wait, signal);
    const run = await api<Run>(`/api/ai/agents/${agentId}/eval-runs/${runId}`, { signal });
    progress(run);
    if (run.status !== 'running' || signal.aborted || Date.now() >= giveUpAt) return run;
    wait = Math.min(MAX_WAIT_MS, Math.round(wait * 1.5));
  }
}

const count = (n: number, one: string, many: string) => `${formatInteger(n)} ${n === 1 ? one : many}`;

/** One sentence on a run: how it ended, or how far it is. */
export function runSummary(run: Run): string {
  const failed = run.results.filter((result) => !result.passed).length;
  const done = count(run.results.length, 'case', 'cases');
  switch (run.status) {
    case 'running':
      return `Running: ${done} answered so far.`;
    case 'passed':
      return `Passed: every case passed (${done}).`;
    case 'failed':
      return `Failed: ${formatInteger(failed)} of ${done} failed.`;
    default:
      return `Error: the run could not finish (${formatInteger(failed)} of ${done} did not pass). See the reasons below.`;
  }
}

function resultView(result: Result, headingLevel: 'h3' | 'h4'): HTMLElement {
  const verdict = result.passed ? 'Passed' : 'Failed';
  const item = el(
    'li',
    { class: 'eval-result', 'data-case-id': result.caseId, 'data-passed': String(result.passed) },
    el(headingLevel, {}, `${result.name}: `, el('span', { class: 'verdict' }, verdict)),
  );
  if (result.reasons.length > 0)
    item.append(
      el('p', { class: 'label' }, 'Why it failed'),
      el('ul', { class: 'reasons' }, ...result.reasons.map((reason) => el('li', {}, reason))),
    );
  if (result.judge)
    item.append(el('p', {}, `Judge: ${result.judge.passed ? 'PASS' : 'FAIL'}${result.judge.reason ? `: ${result.judge.reason}` : ''}`));
  item.append(el('p', { class: 'label' }, 'Answer'), el('pre', { class: 'answer' }, result.answer || '(no text)'));
  if (result.toolCalls.length === 0) item.append(el('p', { class: 'note' }, 'No tool calls.'));
  else
    item.append(
      el('p', { class: 'label' }, `Tool calls (${formatInteger(result.toolCalls.length)}, none of them acted)`),
      el(
        'ol',
        { class: 'tool-calls' },
        ...result.toolCalls.map((call) =>
          el(
            'li',
            { class: 'tool-call', 'data-tool': call.toolName },
            el('strong', {}, call.toolName),
            el('pre', {}, el('code', {}, JSON.stringify(call.input ?? {}, null, 2))),
          ),
        ),
      ),
    );
  item.append(el('p', { class: 'note' }, `${formatInteger(result.usage.totalTokens)} tokens, ${formatUsd(result.usage.costUsd)}`));
  return item;
}

/** The run's results, in the order of its cases as they ended. */
export function resultsView(run: Run, id: string, headingLevel: 'h3' | 'h4' = 'h3'): HTMLElement {
  return el(
    'ol',
    { class: 'eval-results', id, 'data-run-id': run.id, 'data-status': run.status },
    ...run.results.map((result) => resultView(result, headingLevel)),
  );
}
