import type { Expectations, RunCase } from '../../sql/agent-evaluations.ts';
import type { ProviderKeyRow } from '../../sql/provider-keys.ts';
import type { AppDeps } from '../core/deps.ts';
import { callModel } from '../metering/call.ts';
import { modelFor } from '../metering/models.ts';
import { accountOfRun, meteredOf, type MeteredUsage, type RunOwner } from './case-run.ts';

/*
 * Judging a case's answer (docs/evaluations.md, "Judging"): the plain expectations in code, the
 * rubric by one model call.
 */

/** Most tokens the judge may write: a verdict and a sentence or two. */
const JUDGE_OUTPUT_TOKENS = 300;

/** The judge's own fixed instructions; the rubric, the conversation and the answer come as the user's turn. */
export const JUDGE_PROMPT =
  "You grade a business assistant's answer against a rubric. Read the rubric, the conversation and the answer. " +
  'Reply with PASS or FAIL as the first word, then one sentence saying why.';

/** Each expectation that does not hold, as a sentence; none: the case passes (the judge aside). */
export function unmetExpectations(expect: Expectations, answer: string, toolCalls: readonly { toolName: string }[]): string[] {
  const reasons: string[] = [];
  const text = answer.toLowerCase();
  for (const phrase of expect.contains ?? [])
    if (!text.includes(phrase.toLowerCase())) reasons.push(`The answer does not contain "${phrase}".`);
  for (const phrase of expect.notContains ?? []) if (text.includes(phrase.toLowerCase())) reasons.push(`The answer contains "${phrase}".`);
  if (
    expect.toolCalls !== undefined &&
    !inOrder(
      expect.toolCalls,
      toolCalls.map((call) => call.toolName),
    )
  )
    reasons.push(
      `The tools called (${toolCalls.map((call) => call.toolName).join(', ') || 'none'}) do not include ${expect.toolCalls.join(', ')} in this order.`,
    );
  if (expect.noToolCalls === true && toolCalls.length > 0)
    reasons.push(`A tool was called (${toolCalls.map((call) => call.toolName).join(', ')}) where none should be.`);
  return reasons;
}

/** Whether `wanted` appears in `called` in this order (other calls may come between). */
function inOrder(wanted: readonly string[], called: readonly string[]): boolean {
  let at = 0;
  for (const name of called) if (at < wanted.length && name === wanted[at]) at += 1;
  return at === wanted.length;
}

/** The judge's verdict: its first word PASS or FAIL, and what follows as the reason; anything else fails. */
export function readVerdict(text: string): { passed: boolean; reason: string } {
  const match = /^[\s"'*`#]*(PASS|FAIL)\b/i.exec(text);
  if (!match) return { passed: false, reason: `The judge did not answer PASS or FAIL: ${text.trim().slice(0, 300)}` };
  const rest = text
    .slice(match[0].length)
    .replace(/^[\s:.,\-–—*]+/, '')
    .trim();
  return { passed: match[1]!.toUpperCase() === 'PASS', reason: rest.slice(0, 1000) || match[1]!.toUpperCase() };
}

/**
 * One call on `AI_JUDGE_MODEL` (absent: the tried definition's model) with the rubric, the case's
 * messages and the answer; metered and reserved as the run's other calls.
 */
export async function judgeAnswer(
  deps: AppDeps,
  judge: { owner: RunOwner; modelId: string; storedKey: ProviderKeyRow | null; signal: AbortSignal; writes: Promise<void>[] },
  testCase: RunCase,
  rubric: string,
  answer: string,
): Promise<{ verdict: { passed: boolean; reason: string } | null; failure: string | null; metered: MeteredUsage[] }> {
  const model = modelFor(deps, judge.owner.organizationId, judge.modelId, judge.signal, judge.storedKey);
  try {
    const conversation = testCase.messages
      .map((message) => `${message.role}: ${message.parts.map((part) => part.text).join('\n')}`)
      .join('\n\n');
    const result = await callModel(deps, model, { account: accountOfRun(judge.owner), unrecorded: 'log' }, (ai) =>
      ai.generateText({
        system: JUDGE_PROMPT,
        prompt: `Rubric:\n${rubric}\n\nConversation:\n${conversation}\n\nAnswer:\n${answer}`,
        maxOutputTokens: JUDGE_OUTPUT_TOKENS,
        temperature: 0,
        abortSignal: judge.signal,
      }),
    );
    return { verdict: readVerdict(result.text), failure: null, metered: meteredOf(model) };
  } catch (error) {
    const text = error instanceof Error && 'errorCode' in error ? error.message : 'The judge model could not be reached.';
    return { verdict: null, failure: `The judge failed: ${text}`, metered: meteredOf(model) };
  }
}
