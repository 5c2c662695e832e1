import { uuidv7 } from 'uuidv7';
import { countRunningRunsUnderLock, findRun, insertRun, listCasesOfAgent, listRuns } from '../../sql/agent-evaluations.ts';
import { findCurrentDefinition } from '../../sql/agent-versions.ts';
import { agentNotFound } from '../agents/errors.ts';
import { AgentIdParams } from '../agents/schemas.ts';
import { agentRoute } from '../agents/scope.ts';
import { ValidationError } from '../core/errors.ts';
import { defineRoute } from '../core/route.ts';
import { ValidationErrorBody } from '../core/schemas.ts';
import { applyEdit } from './definition.ts';
import { AI_EVALUATION_BUSY, AI_EVAL_RUN_NOT_FOUND, evaluationBusy, runNotFound } from './errors.ts';
import { evaluationRuns } from './runner.ts';
import { MAX_CASES_PER_RUN, RunList, RunParams, RunSchema, RunStarted, StartRunBody } from './schemas.ts';

const tags = ['evaluations'];
const invalid = { description: 'Invalid id or body', schema: ValidationErrorBody };
/** Runs of one organization running at once; one more is 409 `AI.EVALUATION_BUSY`. */
export const RUNS_PER_ORGANIZATION = 2;
/** Runs the list shows, newest first. */
const RUNS_LISTED = 50;

/** An agent's evaluation runs (docs/evaluations.md, "Runs"). */
export const evaluationRunRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ai/agents/:agentId/eval-runs',
    summary: "Run an agent's test cases against its current definition or a draft, without changing the agent",
    description:
      '`definition`: the fields of a PATCH to try on top of the current definition (absent: the current one); `caseIds`: the ' +
      `cases to run (absent: all of them; at most ${MAX_CASES_PER_RUN}). Tools never act in a run. At most ${RUNS_PER_ORGANIZATION} runs ` +
      'of an organization run at once (409 `AI.EVALUATION_BUSY`). Answers at once; `GET .../eval-runs/:runId` follows the run.',
    tags,
    ...agentRoute({ access: 'update' }),
    rateLimit: { limit: 20, windowMs: '1m', identifierType: 'userId', source: 'project' },
    schemas: { params: AgentIdParams, body: StartRunBody },
    status: 202,
    errors: [AI_EVALUATION_BUSY],
    responses: { 202: { description: 'The run started', schema: RunStarted }, 400: invalid },
    handler: async ({ deps, scope, body }) => {
      const [current, stored] = await Promise.all([
        findCurrentDefinition(deps.db, scope.organizationId, scope.agentId),
        listCasesOfAgent(deps.db, scope.agentId),
      ]);
      if (!current) throw agentNotFound();
      const byId = new Map(stored.map((testCase) => [testCase.id, testCase]));
      const missing = (body.caseIds ?? []).flatMap((id, index) =>
        byId.has(id) ? [] : [{ path: ['caseIds', String(index)], message: 'is not a case of this agent' }],
      );
      if (missing.length > 0) throw new ValidationError(missing);
      const chosen = body.caseIds ? body.caseIds.map((id) => byId.get(id)!) : stored;
      if (chosen.length === 0) throw new ValidationError([{ path: ['caseIds'], message: 'the agent has no test case to run' }]);
      if (chosen.length > MAX_CASES_PER_RUN)
        throw new ValidationError([
          { path: ['caseIds'], message: `a run takes at most ${MAX_CASES_PER_RUN} cases; name them with caseIds` },
        ]);
      const id = uuidv7();
      await deps.db.transaction(async (tx) => {
        // Counted under the organization's lock: concurrent starts at the cap make up to the cap, never more.
        if ((await countRunningRunsUnderLock(tx, scope.organizationId)) >= RUNS_PER_ORGANIZATION)
          throw evaluationBusy(RUNS_PER_ORGANIZATION);
        await insertRun(tx, {
          id,
          organizationId: scope.organizationId,
          agentId: scope.agentId,
          version: current.version,
          definition: applyEdit(current.definition, body.definition ?? {}),
          cases: chosen.map(({ id: caseId, name, messages, expect }) => ({ id: caseId, name, messages, expect })),
          createdBy: scope.userId,
          now: deps.clock(),
        });
      });
      evaluationRuns(deps).start(id);
      return { id, status: 'running' as const };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/eval-runs/:runId',
    summary: 'One evaluation run: its status, the definition it tried and each case’s result so far',
    tags,
    ...agentRoute({ access: 'read' }),
    schemas: { params: RunParams },
    errors: [AI_EVAL_RUN_NOT_FOUND],
    responses: { 200: { description: 'The run', schema: RunSchema }, 400: invalid },
    handler: async ({ deps, scope, params }) => {
      const run = await findRun(deps.db, scope.agentId, params.runId);
      if (!run) throw runNotFound();
      return {
        ...run,
        results: run.results.map(({ error: _error, toolCalls, ...result }) => ({
          ...result,
          toolCalls: toolCalls.map((call) => ({ toolName: call.toolName, input: call.input ?? null })),
        })),
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/eval-runs',
    summary: `An agent's newest ${RUNS_LISTED} evaluation runs, newest first`,
    tags,
    ...agentRoute({ access: 'read' }),
    schemas: { params: AgentIdParams },
    responses: { 200: { description: 'The runs', schema: RunList }, 400: invalid },
    handler: async ({ deps, scope }) => ({ runs: await listRuns(deps.db, scope.agentId, RUNS_LISTED) }),
  }),
];
