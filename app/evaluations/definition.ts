import type { FullDefinition } from '../../sql/agent-versions.ts';
import type { Guardrails } from '../../sql/agents.ts';

/*
 * An agent's definition as versions store it and runs try it (docs/evaluations.md): name,
 * description, instructions, model settings, guardrails and tool permissions.
 */

/** A partial definition as a PATCH or a run's draft gives it: the given fields of `guardrails` replace those stored. */
export type DefinitionEdit = Partial<Omit<FullDefinition, 'guardrails' | 'tools'>> & { guardrails?: Partial<Guardrails> };

/** The definition `edit` makes of `current` (the same rule as the PATCH's UPDATE, sql/agents.ts `updateAgent`). */
export function applyEdit(current: FullDefinition, edit: DefinitionEdit): FullDefinition {
  const pick = <K extends keyof DefinitionEdit>(key: K) => (edit[key] === undefined ? current[key] : edit[key]) as FullDefinition[K];
  return {
    name: pick('name'),
    description: pick('description'),
    modelId: pick('modelId'),
    instructions: pick('instructions'),
    temperature: pick('temperature'),
    maxOutputTokens: pick('maxOutputTokens'),
    guardrails: { ...current.guardrails, ...stripUndefined(edit.guardrails ?? {}) },
    tools: current.tools,
  };
}

const stripUndefined = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
