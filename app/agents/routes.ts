import { uuidv7 } from 'uuidv7';
import { archiveAgent, countAgentsUnderLock, insertAgent, listAgentsOfOrganization, updateAgent } from '../../sql/agents.ts';
import { defineRoute } from '../core/route.ts';
import { ORGANIZATION_SCOPE } from '../core/route-scope.ts';
import { ValidationErrorBody } from '../core/schemas.ts';
import { AI_AGENT_LIMIT_REACHED, AI_EVALUATION_NOT_PASSED, agentLimitReached, agentNotFound } from './errors.ts';
import { agentRoute } from './scope.ts';
import { AI_MODEL_NOT_AVAILABLE } from '../metering/errors.ts';
import { moderationModelAllowed } from './guardrail-models.ts';
import { PLANS_LIMIT_REACHED } from '../plans/errors.ts';
import { checkAgentLimit } from '../plans/limits.ts';
import { findCurrentDefinition, recordAgentVersion } from '../../sql/agent-versions.ts';
import { assertRunPassed } from './evaluation-gate.ts';
import { AgentIdParams, AgentListSchema, AgentSchema, CreateAgentBody, DEFAULT_REFUSAL, UpdateAgentBody } from './schemas.ts';

const AGENT = 'ai.agent';

/** Agent routes (docs/interface.md §7), always in the acting organization (`scope.organizationId`). */
export const agentRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ai/agents',
    summary: 'Create an agent in the acting organization',
    description:
      'At most `AGENTS_PER_ORGANIZATION` (default 100) agents in use per organization: one more is 409 `AI.AGENT_LIMIT_REACHED` ' +
      "(archived agents do not count); in a business, one past its plan's `maxAgents` is 409 `PLANS.LIMIT_REACHED` " +
      '(`metadata: { limit, value }`).',
    tags: ['agents'],
    auth: 'jwt',
    policy: { subject: AGENT, action: 'create' },
    scope: ORGANIZATION_SCOPE,
    rateLimit: { limit: 20, windowMs: '1m', identifierType: 'userId', source: 'project' },
    schemas: { body: CreateAgentBody },
    status: 201,
    idempotent: true,
    errors: [AI_AGENT_LIMIT_REACHED, PLANS_LIMIT_REACHED, AI_MODEL_NOT_AVAILABLE],
    responses: {
      201: { description: 'The new agent', schema: AgentSchema },
      400: { description: 'Invalid body', schema: ValidationErrorBody },
    },
    handler: async ({ deps, scope, body }) => {
      await moderationModelAllowed(deps, scope.organizationId, body.guardrails?.moderationModel);
      return deps.db.transaction(async (tx) => {
        // Counted under the organization's lock: concurrent creates at the cap make up to the cap, never more.
        const limit = deps.config.agents.perOrganization;
        const agents = await countAgentsUnderLock(tx, scope.organizationId);
        if (agents >= limit) throw agentLimitReached(limit);
        // A business's plan may allow fewer (409 PLANS.LIMIT_REACHED), counted under the same lock.
        await checkAgentLimit(tx, scope.organizationId, agents);
        const created = await insertAgent(tx, {
          id: uuidv7(),
          organizationId: scope.organizationId,
          name: body.name,
          description: body.description ?? '',
          modelId: body.modelId ?? null,
          instructions: body.instructions ?? '',
          temperature: body.temperature ?? null,
          maxOutputTokens: body.maxOutputTokens ?? null,
          guardrails: {
            blockedTerms: body.guardrails?.blockedTerms ?? [],
            moderationModel: body.guardrails?.moderationModel ?? null,
            refusal: body.guardrails?.refusal ?? DEFAULT_REFUSAL,
          },
        });
        // Version 1, in the transaction that creates the agent (docs/evaluations.md, "Versions").
        await recordAgentVersion(tx, {
          organizationId: scope.organizationId,
          agentId: created.id,
          note: null,
          createdBy: scope.userId,
          now: deps.clock(),
        });
        return created;
      });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents',
    summary: 'List the agents of the acting organization (archived ones are not listed)',
    tags: ['agents'],
    auth: 'jwt',
    policy: { subject: AGENT, action: 'read' },
    scope: ORGANIZATION_SCOPE,
    responses: { 200: { description: 'Agents, oldest first', schema: AgentListSchema } },
    handler: async ({ deps, scope }) => ({ agents: await listAgentsOfOrganization(deps.db, scope.organizationId) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId',
    summary: 'One agent of the acting organization',
    tags: ['agents'],
    ...agentRoute({ access: 'read' }),
    schemas: { params: AgentIdParams },
    responses: {
      200: { description: 'The agent', schema: AgentSchema },
      400: { description: 'agentId is not a UUID', schema: ValidationErrorBody },
    },
    handler: ({ agent }) => agent,
  }),

  defineRoute({
    method: 'PATCH',
    path: '/ai/agents/:agentId',
    summary: 'Change an agent of the acting organization (name, description, model and its settings, instructions, guardrails)',
    description:
      'A change is recorded as a new version (`versionNote` its note). With `evaluationRunId` the change applies only when that run ' +
      'passed on exactly the definition the change results in; otherwise 409 `AI.EVALUATION_NOT_PASSED` and nothing changes.',
    tags: ['agents'],
    ...agentRoute({ access: 'update' }),
    schemas: { params: AgentIdParams, body: UpdateAgentBody },
    errors: [AI_MODEL_NOT_AVAILABLE, AI_EVALUATION_NOT_PASSED],
    responses: {
      200: { description: 'The agent as changed', schema: AgentSchema },
      400: { description: 'Invalid id or body', schema: ValidationErrorBody },
    },
    // The UPDATE is the agent's own write: its WHERE keeps the agency and skips an agent archived since the scope read it.
    // Its row lock holds until the version is written and the gate has read the result, in one transaction.
    handler: async ({ deps, scope, agent, body }) => {
      const { versionNote, evaluationRunId, ...edit } = body;
      await moderationModelAllowed(deps, scope.organizationId, edit.guardrails?.moderationModel);
      return deps.db.transaction(async (tx) => {
        const updated = (await updateAgent(tx, scope.organizationId, agent.id, edit)) ?? Promise.reject(agentNotFound());
        const ids = { organizationId: scope.organizationId, agentId: agent.id };
        if (evaluationRunId !== undefined) {
          const current = await findCurrentDefinition(tx, scope.organizationId, agent.id);
          if (!current) throw agentNotFound();
          await assertRunPassed(tx, { ...ids, runId: evaluationRunId, definition: current.definition });
        }
        await recordAgentVersion(tx, { ...ids, note: versionNote ?? null, createdBy: scope.userId, now: deps.clock() });
        return updated;
      });
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/ai/agents/:agentId',
    summary: 'Archive an agent of the acting organization',
    description:
      'The agent leaves the list and every route under it answers 404 `AI.AGENT_NOT_FOUND` (a second DELETE too); its ' +
      'conversations, documents, MCP servers and usage are kept, and analytics go on counting its usage. A turn already ' +
      'running finishes.',
    tags: ['agents'],
    ...agentRoute({ access: 'update' }),
    schemas: { params: AgentIdParams },
    status: 204,
    responses: {
      204: { description: 'Archived' },
      400: { description: 'agentId is not a UUID', schema: ValidationErrorBody },
    },
    // A concurrent DELETE that archived it first leaves this one nothing to archive: the same 404 as a second DELETE.
    handler: async ({ deps, scope, agent }) => {
      if (!(await archiveAgent(deps.db, scope.organizationId, agent.id, deps.clock()))) throw agentNotFound();
    },
  }),
];
