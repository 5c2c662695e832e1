import { Type } from '@sinclair/typebox';
import { uuidv7 } from 'uuidv7';
import { isAgencyOrItsBusiness } from '../../sql/agency-businesses.ts';
import { copyToolPermissions } from '../../sql/agent-copies.ts';
import { countAgentsUnderLock, insertAgent } from '../../sql/agents.ts';
import { defineRoute } from '../core/route.ts';
import { StrictObject, Uuid } from '../core/schemas.ts';
import { AI_MODEL_NOT_AVAILABLE } from '../metering/errors.ts';
import { ORGANIZATION_NOT_FOUND, organizationNotFound } from '../organization/errors.ts';
import { AI_AGENT_LIMIT_REACHED, AI_EVALUATION_NOT_PASSED, agentLimitReached, agentNotFound } from './errors.ts';
import { assertRunPassed } from './evaluation-gate.ts';
import { PLANS_LIMIT_REACHED } from '../plans/errors.ts';
import { checkAgentLimit } from '../plans/limits.ts';
import { findCurrentDefinition, recordAgentVersion } from '../../sql/agent-versions.ts';
import { moderationModelAllowed } from './guardrail-models.ts';
import { AgentIdParams, AgentSchema } from './schemas.ts';
import { AGENT_SCOPE } from './scope.ts';

const CopyAgentBody = StrictObject({
  organizationId: Uuid({ description: 'where the copy goes: the acting organization, or (acting in an agency) one of its businesses' }),
  evaluationRunId: Type.Optional(
    Uuid({ description: "an evaluation run that must have passed on exactly the agent's definition (409 AI.EVALUATION_NOT_PASSED)" }),
  ),
});

/** Copying an agent into the agency or one of its client workspaces (docs/agents-and-tools.md, "Copies"). */
export const agentCopyRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ai/agents/:agentId/copies',
    summary: "Copy an agent's definition and tool permissions into the acting organization or one of its businesses",
    description:
      'The copy has the name, description, instructions, model settings, guardrails and tool permissions (those of MCP servers ' +
      'excepted); not documents, MCP servers or their credentials, channel or conversations. A target that is neither the acting ' +
      'organization nor one of its businesses is 404 ORGANIZATION.NOT_FOUND; the target holds at most AGENTS_PER_ORGANIZATION agents.',
    tags: ['agents'],
    auth: 'jwt',
    principal: 'user',
    policy: { subject: 'ai.agent', action: 'create' },
    scope: AGENT_SCOPE,
    rateLimit: { limit: 20, windowMs: '1m', identifierType: 'userId', source: 'project' },
    schemas: { params: AgentIdParams, body: CopyAgentBody },
    status: 201,
    idempotent: true,
    errors: [ORGANIZATION_NOT_FOUND, AI_AGENT_LIMIT_REACHED, PLANS_LIMIT_REACHED, AI_MODEL_NOT_AVAILABLE, AI_EVALUATION_NOT_PASSED],
    responses: { 201: { description: 'The copy', schema: AgentSchema } },
    handler: async ({ deps, scope, agent, body }) => {
      const target = body.organizationId.toLowerCase();
      if (!(await isAgencyOrItsBusiness(deps.db, scope.organizationId, target))) throw organizationNotFound();
      // The gate (docs/evaluations.md): the run passed on exactly the definition the copy receives.
      if (body.evaluationRunId !== undefined) {
        const current = await findCurrentDefinition(deps.db, scope.organizationId, agent.id);
        if (!current) throw agentNotFound();
        await assertRunPassed(deps.db, {
          organizationId: scope.organizationId,
          agentId: agent.id,
          runId: body.evaluationRunId.toLowerCase(),
          definition: current.definition,
        });
      }
      await moderationModelAllowed(deps, target, agent.guardrails.moderationModel);
      return deps.db.transaction(async (tx) => {
        const limit = deps.config.agents.perOrganization;
        const agents = await countAgentsUnderLock(tx, target);
        if (agents >= limit) throw agentLimitReached(limit);
        // A business's plan may allow fewer (409 PLANS.LIMIT_REACHED), counted under the same lock.
        await checkAgentLimit(tx, target, agents);
        const copy = await insertAgent(tx, {
          id: uuidv7(),
          organizationId: target,
          name: agent.name,
          description: agent.description,
          modelId: agent.modelId,
          instructions: agent.instructions,
          temperature: agent.temperature,
          maxOutputTokens: agent.maxOutputTokens,
          guardrails: agent.guardrails,
        });
        await copyToolPermissions(tx, agent.id, copy.id);
        // The copy's version 1, in the transaction that makes it (docs/evaluations.md, "Versions").
        await recordAgentVersion(tx, { organizationId: target, agentId: copy.id, note: null, createdBy: scope.userId, now: deps.clock() });
        return copy;
      });
    },
  }),
];
