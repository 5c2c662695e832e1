import { findAgentInOrganization, type Agent } from '../../sql/agents.ts';
import type { StaffScope } from '../../sql/chat-conversations.ts';
import { defineScope, type ActingScope } from '../core/route-scope.ts';
import { AI_AGENT_NOT_FOUND, agentNotFound } from './errors.ts';

/**
 * The scope of every route under `/ai/agents/:agentId` (`scope: AGENT_SCOPE`): the chain finds
 * the agent in the acting organization and hands it to the handler as `input.agent`; a missing agent
 * and another agency's are the same 404 `AI.AGENT_NOT_FOUND` (docs/interface.md §2).
 */
export const AGENT_SCOPE = defineScope({
  key: 'agent',
  param: 'agentId',
  error: AI_AGENT_NOT_FOUND,
  notFound: agentNotFound,
  find: findAgentInOrganization,
  scopeOf: (acting: ActingScope, agent: Agent): StaffScope => ({
    organizationId: acting.organizationId,
    agentId: agent.id,
    userId: acting.userId,
  }),
});

/**
 * The declaration every route under `/ai/agents/:agentId` shares: a staff user's access token, the
 * grant `access` asks for (`read` or `update` on `ai.agent`; `any`: none, any staff user of the
 * organization, as for a user's own approve-always overrides) and the agent scope (the handler
 * gets `agent` and `scope`).
 */
export function agentRoute(access: { access: 'any' }): { auth: 'jwt'; principal: 'user'; scope: typeof AGENT_SCOPE };
export function agentRoute<const A extends 'read' | 'update'>(access: {
  access: A;
}): { auth: 'jwt'; principal: 'user'; policy: { readonly subject: 'ai.agent'; readonly action: A }; scope: typeof AGENT_SCOPE };
export function agentRoute(access: { access: 'any' | 'read' | 'update' }) {
  const common = { auth: 'jwt' as const, principal: 'user' as const, scope: AGENT_SCOPE };
  return access.access === 'any' ? common : { ...common, policy: { subject: 'ai.agent', action: access.access } as const };
}
