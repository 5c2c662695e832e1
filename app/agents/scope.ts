import { findAgentInAgency } from '../../sql/agents.ts';
import { defineScope } from '../core/route-scope.ts';
import { AI_AGENT_NOT_FOUND, agentNotFound } from './errors.ts';

/**
 * The scope of every route under `/ai/agents/:agentId` (`scope: AGENT_SCOPE`): the chain finds
 * the agent in the caller's agency and hands it to the handler as `input.agent`; a missing agent
 * and another agency's are the same 404 `AI.AGENT_NOT_FOUND` (docs/interface.md §2).
 */
export const AGENT_SCOPE = defineScope({
  key: 'agent',
  param: 'agentId',
  error: AI_AGENT_NOT_FOUND,
  notFound: agentNotFound,
  find: findAgentInAgency,
});
