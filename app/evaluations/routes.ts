import { uuidv7 } from 'uuidv7';
import {
  countCasesOfAgent,
  deleteCase,
  findConversationMessagesForCase,
  insertCase,
  listCasesOfAgent,
  type CaseMessage,
} from '../../sql/agent-evaluations.ts';
import { findAgentOfOrganizationWithArchived, listAgentVersions } from '../../sql/agent-versions.ts';
import { lockAgentInOrganization } from '../../sql/agents.ts';
import { AI_AGENT_NOT_FOUND, agentNotFound } from '../agents/errors.ts';
import { AgentIdParams, AgentSchema } from '../agents/schemas.ts';
import { agentRoute } from '../agents/scope.ts';
import { AI_CONVERSATION_NOT_FOUND, conversationNotFound } from '../chat/errors.ts';
import { ValidationError } from '../core/errors.ts';
import { defineRoute } from '../core/route.ts';
import { ORGANIZATION_SCOPE } from '../core/route-scope.ts';
import { ValidationErrorBody } from '../core/schemas.ts';
import {
  AI_AGENT_VERSION_NOT_FOUND,
  AI_EVAL_CASE_LIMIT_REACHED,
  AI_EVAL_CASE_NOT_FOUND,
  caseLimitReached,
  caseNotFound,
} from './errors.ts';
import {
  CaseList,
  CaseParams,
  CaseSchema,
  CreateCaseBody,
  MAX_CASES_PER_AGENT,
  RestoreBody,
  VersionList,
  VersionParams,
  VersionQuery,
} from './schemas.ts';
import { restoreVersion } from './versions.ts';

const tags = ['evaluations'];
const invalid = { description: 'Invalid id or body', schema: ValidationErrorBody };

/**
 * The words of a recorded conversation as a case's messages: its text parts, up to and including
 * its last user message (tool calls and later answers left out); null when it has no user message.
 */
export function caseMessagesOf(messages: readonly { id: string; role: 'user' | 'assistant'; parts: unknown[] }[]): CaseMessage[] | null {
  const words = messages
    .map((message) => ({
      id: message.id,
      role: message.role,
      parts: message.parts.flatMap((part) => {
        const text = part as { type?: unknown; text?: unknown };
        return text.type === 'text' && typeof text.text === 'string' && text.text !== ''
          ? [{ type: 'text' as const, text: text.text }]
          : [];
      }),
    }))
    .filter((message) => message.parts.length > 0);
  const last = words.findLastIndex((message) => message.role === 'user');
  return last === -1 ? null : words.slice(0, last + 1);
}

/** Versions of an agent and its test cases (docs/evaluations.md); its runs are app/evaluations/run-routes.ts. */
export const evaluationRoutes = [
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/versions',
    summary: "An agent's versions, newest first",
    description: 'Every change of the definition is a version. An archived agent keeps its versions, readable to its organization.',
    tags,
    auth: 'jwt',
    principal: 'user',
    policy: { subject: 'ai.agent', action: 'read' },
    scope: ORGANIZATION_SCOPE,
    schemas: { params: AgentIdParams, query: VersionQuery },
    errors: [AI_AGENT_NOT_FOUND],
    responses: { 200: { description: 'A page of versions', schema: VersionList }, 400: invalid },
    handler: async ({ deps, scope, params, query }) => {
      if (!(await findAgentOfOrganizationWithArchived(deps.db, scope.organizationId, params.agentId))) throw agentNotFound();
      const limit = query.limit ?? 20;
      const rows = await listAgentVersions(deps.db, params.agentId, { limit, before: query.before });
      return { versions: rows.slice(0, limit), hasMore: rows.length > limit };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/ai/agents/:agentId/versions/:version/restore',
    summary: 'Restore a version of an agent (recorded as a new version equal to it)',
    description: 'A tool of that version whose MCP server the agent no longer has is left out of the restored tool set.',
    tags,
    ...agentRoute({ access: 'update' }),
    schemas: { params: VersionParams, body: RestoreBody },
    errors: [AI_AGENT_VERSION_NOT_FOUND],
    responses: { 200: { description: 'The agent as restored', schema: AgentSchema }, 400: invalid },
    handler: ({ deps, scope, params, body }) =>
      restoreVersion(deps.db, {
        organizationId: scope.organizationId,
        agentId: scope.agentId,
        version: params.version,
        note: body.note,
        userId: scope.userId,
        now: deps.clock(),
      }),
  }),
  defineRoute({
    method: 'POST',
    path: '/ai/agents/:agentId/eval-cases',
    summary: 'Add a test case to an agent: its messages, or those of a recorded conversation, and what the answer must show',
    description:
      "`messages` (ending with a user message) or `fromConversationId` (an end user's conversation of the agent, or one of the caller's own): " +
      `the conversation's words up to its last user message. At most ${MAX_CASES_PER_AGENT} cases per agent (409 \`AI.EVAL_CASE_LIMIT_REACHED\`).`,
    tags,
    ...agentRoute({ access: 'update' }),
    schemas: { params: AgentIdParams, body: CreateCaseBody },
    status: 201,
    errors: [AI_CONVERSATION_NOT_FOUND, AI_EVAL_CASE_LIMIT_REACHED],
    responses: { 201: { description: 'The case', schema: CaseSchema }, 400: invalid },
    handler: async ({ deps, scope, body }) => {
      if ((body.messages === undefined) === (body.fromConversationId === undefined))
        throw new ValidationError([{ path: ['messages'], message: 'give either messages or fromConversationId' }]);
      let messages: CaseMessage[];
      if (body.fromConversationId !== undefined) {
        const stored = await findConversationMessagesForCase(deps.db, scope, body.fromConversationId);
        if (stored === null) throw conversationNotFound();
        const words = caseMessagesOf(stored);
        if (words === null) throw new ValidationError([{ path: ['fromConversationId'], message: 'the conversation has no user message' }]);
        messages = words;
      } else {
        messages = body.messages!.map((message) => ({ id: message.id ?? uuidv7(), role: message.role, parts: message.parts }));
        if (messages.at(-1)!.role !== 'user')
          throw new ValidationError([
            { path: ['messages', String(messages.length - 1), 'role'], message: 'must be user: a case ends with a user message' },
          ]);
      }
      return deps.db.transaction(async (tx) => {
        // Counted under the agent's lock: concurrent adds at the cap make up to the cap, never more.
        if (!(await lockAgentInOrganization(tx, scope.organizationId, scope.agentId))) throw agentNotFound();
        if ((await countCasesOfAgent(tx, scope.agentId)) >= MAX_CASES_PER_AGENT) throw caseLimitReached(MAX_CASES_PER_AGENT);
        return insertCase(tx, {
          id: uuidv7(),
          organizationId: scope.organizationId,
          agentId: scope.agentId,
          name: body.name,
          messages,
          expect: body.expect,
          now: deps.clock(),
        });
      });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/eval-cases',
    summary: "An agent's test cases, oldest first",
    tags,
    ...agentRoute({ access: 'read' }),
    schemas: { params: AgentIdParams },
    responses: { 200: { description: 'The cases', schema: CaseList }, 400: invalid },
    handler: async ({ deps, scope }) => ({ cases: await listCasesOfAgent(deps.db, scope.agentId) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/ai/agents/:agentId/eval-cases/:caseId',
    summary: 'Delete a test case (runs that ran it keep its result)',
    tags,
    ...agentRoute({ access: 'update' }),
    schemas: { params: CaseParams },
    status: 204,
    errors: [AI_EVAL_CASE_NOT_FOUND],
    responses: { 204: { description: 'Deleted' }, 400: invalid },
    handler: async ({ deps, scope, params }) => {
      if (!(await deleteCase(deps.db, scope.agentId, params.caseId))) throw caseNotFound();
    },
  }),
];
