/**
 * The draft of an agent's definition being edited on its page, kept in this tab's
 * `sessionStorage` so the agent's Tests page can run the cases against it, and the passing run
 * that lets a gated save go through (docs/evaluations.md, "The gate"). A draft belongs to the
 * agent as it was when editing began (`base`: its `updatedAt`); one of an agent changed since is
 * ignored, and so is a run that passed on other fields than the form's. Nothing here is sent to the API but the draft's fields and the run's id.
 */
import type { ApiBody } from './api-types.generated.ts';

/** The fields of the definition form (the guardrails have their own form and save). */
export type DraftFields = Pick<
  NonNullable<ApiBody<'POST /ai/agents/:agentId/eval-runs'>['definition']>,
  'instructions' | 'modelId' | 'temperature' | 'maxOutputTokens'
>;
/** `passed`: the fields a run passed on (the draft may have moved on from them, and back). */
export type Draft = { base: string; fields: DraftFields; passed?: { fields: DraftFields; runId: string } };

const draftKey = (agentId: string) => `console.agent-draft.${agentId}`;
const gateKey = (agentId: string) => `console.agent-gate.${agentId}`;

/** Two drafts are the same definition when every field is (in the form's fixed order). */
export const sameFields = (a: DraftFields, b: DraftFields) =>
  a.instructions === b.instructions &&
  a.modelId === b.modelId &&
  a.temperature === b.temperature &&
  a.maxOutputTokens === b.maxOutputTokens;

function read<T>(key: string): T | undefined {
  try {
    return (JSON.parse(sessionStorage.getItem(key) ?? 'null') as T | null) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The stored draft of `agentId` when it was begun on the agent as it is now (`base`). */
export function readDraft(agentId: string, base: string): Draft | undefined {
  const draft = read<Draft>(draftKey(agentId));
  return draft && draft.base === base && typeof draft.fields === 'object' ? draft : undefined;
}

/** Keeps `fields` as the draft (and the run that passed, if any). */
export function writeDraft(agentId: string, base: string, fields: DraftFields): void {
  const passed = readDraft(agentId, base)?.passed;
  sessionStorage.setItem(draftKey(agentId), JSON.stringify({ base, fields, ...(passed ? { passed } : {}) } satisfies Draft));
}

/** Records that run `runId` passed on exactly `fields`. */
export function recordPassedRun(agentId: string, base: string, fields: DraftFields, runId: string): void {
  const draft = readDraft(agentId, base) ?? { base, fields };
  sessionStorage.setItem(draftKey(agentId), JSON.stringify({ ...draft, passed: { fields, runId } } satisfies Draft));
}

/** The run that passed on exactly `fields` of the agent as it is (`base`), if any. */
export function passedRunFor(agentId: string, base: string, fields: DraftFields): string | undefined {
  const passed = readDraft(agentId, base)?.passed;
  return passed && sameFields(passed.fields, fields) ? passed.runId : undefined;
}

export function clearDraft(agentId: string): void {
  sessionStorage.removeItem(draftKey(agentId));
}

/**
 * Whether saving this agent's definition waits for a passing test run: the caller's choice (the
 * API gates a PATCH that names a run), kept in this browser's `localStorage` as a preference (no
 * secret) so it holds in every tab until unticked.
 */
export const gateChosen = (agentId: string) => localStorage.getItem(gateKey(agentId)) === 'on';
export function chooseGate(agentId: string, on: boolean): void {
  if (on) localStorage.setItem(gateKey(agentId), 'on');
  else localStorage.removeItem(gateKey(agentId));
}
