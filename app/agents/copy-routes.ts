import { Type } from '@sinclair/typebox';
import { uuidv7 } from 'uuidv7';
import { isAgencyOrItsBusiness } from '../../sql/agency-businesses.ts';
import { copyToolPermissions } from '../../sql/agent-copies.ts';
import { countAgentsUnderLock, insertAgent } from '../../sql/agents.ts';
import { defineRoute } from '../core/route.ts';
import { StrictObject, Uuid } from '../core/schemas.ts';
import { AI_MODEL_NOT_AVAILABLE } from '../metering/errors.ts';
import { ORGANIZATION_NOT_FOUND, organizationNotFound } from '../organization/errors.ts';
import { AI_AGENT_LIMIT_REACHED, AI_EVALUATION_NOT_PASSED, agentLimitReached, evaluationNotPassed } from './errors.ts';
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
    errors: [ORGANIZATION_NOT_FOUND, AI_AGENT_LIMIT_REACHED, AI_MODEL_NOT_AVAILABLE, AI_EVALUATION_NOT_PASSED],
    responses: { 201: { description: 'The copy', schema: AgentSchema } },
    handler: async ({ deps, scope, agent, body }) => {
      const target = body.organizationId.toLowerCase();
      if (!(await isAgencyOrItsBusiness(deps.db, scope.organizationId, target))) throw organizationNotFound();
      // Seam: evaluation runs are another piece of work; until they exist no run has passed on any definition.
      if (body.evaluationRunId !== undefined) throw evaluationNotPassed();
      await moderationModelAllowed(deps, target, agent.guardrails.moderationModel);
      return deps.db.transaction(async (tx) => {
        const limit = deps.config.agents.perOrganization;
        if ((await countAgentsUnderLock(tx, target)) >= limit) throw agentLimitReached(limit);
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
        return copy;
      });
    },
  }),
];
