import type { CommonQueryMethods } from 'slonik';
import { findRunForGate } from '../../sql/agent-evaluations.ts';
import type { FullDefinition } from '../../sql/agent-versions.ts';
import { evaluationNotPassed } from './errors.ts';

/**
 * The gate (docs/evaluations.md, "The gate"): throws 409 `AI.EVALUATION_NOT_PASSED` unless the
 * run `runId` of the organization, a run of `agentId`, passed on exactly `definition` (every field
 * and the tools, in order). A PATCH calls it in its transaction with the definition its change
 * results in, before it commits; a copy of an agent calls it with the source agent's id and the
 * definition the copy receives. It lives in the agents' area because the PATCH calls it (evaluations
 * import agents, never the other way).
 */
export async function assertRunPassed(
  db: CommonQueryMethods,
  gate: { organizationId: string; agentId: string; runId: string; definition: FullDefinition },
): Promise<void> {
  const run = await findRunForGate(db, gate.organizationId, gate.runId);
  if (!run || run.agentId !== gate.agentId) throw evaluationNotPassed('not_found');
  if (run.status === 'running') throw evaluationNotPassed('running');
  if (run.status !== 'passed') throw evaluationNotPassed('failed');
  if (!sameDefinition(run.definition, gate.definition)) throw evaluationNotPassed('other_definition');
}

/** The definition as one canonical string: its fields in a fixed order, whatever order they were built in. */
function canonical(definition: FullDefinition): string {
  return JSON.stringify([
    definition.name,
    definition.description,
    definition.modelId,
    definition.instructions,
    definition.temperature,
    definition.maxOutputTokens,
    [definition.guardrails.blockedTerms, definition.guardrails.moderationModel, definition.guardrails.refusal],
    definition.tools.map((tool) => [tool.toolName, tool.permissionStatus, tool.providerKey]),
  ]);
}

/** Whether two definitions are exactly the same (every field, the tools in the same order). */
const sameDefinition = (a: FullDefinition, b: FullDefinition) => canonical(a) === canonical(b);
