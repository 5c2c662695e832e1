/**
 * A valid request for every operation of the OpenAPI document that acts in an organization
 * (`x-acting-organization`), in the business the walk reads (test/organization/tenancy.test.ts).
 * `as` is the caller the request is for: the agency's staff acting in the business, or the
 * business's member (each its own approval, conversation and doomed resources, so that the walk's
 * callers never answer for each other). `status` is the answer expected when the caller may act
 * (default: the operation's first documented 2xx); `wave: 2` runs after every other operation
 * (what it removes, others read).
 */
import type { Workspace } from './workspaces.ts';

export type As = 'agency' | 'member';
export type WalkRequest = { params?: Record<string, string>; query?: string; body?: object };
export type Walk = { request: (w: Workspace, as: As) => WalkRequest; status?: number; wave?: 2 };

const hour = 3_600_000;
/** An analytics window holding the walk's turns (to the next whole hour). */
const windowQuery = (now = Date.now()) =>
  `from=${new Date(now - 7 * 24 * hour).toISOString()}&to=${new Date(Math.ceil(now / hour) * hour).toISOString()}`;

const agent = (w: Workspace): Record<string, string> => ({ agentId: w.agentId });
const usage: Walk = { request: () => ({ query: windowQuery() }) };
const tools = { tools: [{ toolName: 'list_documents', permissionStatus: 'needs_approval', providerKey: 'knowledge' }] };
const conversationOf = (w: Workspace, as: As) => (as === 'agency' ? w.conversation : w.memberConversation);

export const WALKS: Record<string, Walk> = {
  'GET /api/organization/my': { request: () => ({}) },
  'GET /api/organization/my/members': { request: () => ({}) },
  'POST /api/organization/my/invitations': { request: (w, as) => ({ body: { email: `invited-${as}@${w.canary}.test`, role: 'member' } }) },
  // A business is no agency: the documented 409 ORGANIZATION.NOT_AN_AGENCY, after the tenancy checks.
  'GET /api/agency/businesses': { request: () => ({}), status: 409 },
  'POST /api/agency/businesses': {
    request: (w, as) => ({
      body: {
        name: `Sub ${w.canary}`,
        planId: '01900000-0000-7000-8000-000000000401',
        owner: { email: `sub-${as}@${w.canary}.test`, name: 'Sub Owner' },
      },
    }),
    status: 409,
  },
  // The plan move and the bill are the agency's own (docs/billing.md): acting in a business they are the plain 403.
  'PUT /api/agency/businesses/{businessId}/plan': {
    request: (w) => ({ params: { businessId: w.id }, body: { planId: '01900000-0000-7000-8000-000000000401' } }),
    // Only the agency's own staff in the agency move a business: acting in the business it is the plain 403.
    status: 403,
  },
  'GET /api/agency/billing': { request: () => ({}), status: 403 },
  'PUT /api/organization/my/branding': {
    request: (w, as) => ({
      body: { productName: `Brand ${as}`, primaryColor: '#336699', logoUrl: null, supportEmail: null, hosts: [`${as}.${w.canary}.test`] },
    }),
    // A business shows its agency's brand; only the agency sets it: acting in a business it is the plain 403.
    status: 403,
  },
  'GET /api/organization/my/branding': { request: () => ({}) },
  'GET /api/organization/my/plan-usage': { request: () => ({}) },
  'GET /api/ai/agents/{agentId}/versions': { request: (w) => ({ params: agent(w) }) },
  'POST /api/ai/agents/{agentId}/versions/{version}/restore': { request: (w) => ({ params: { ...agent(w), version: '1' }, body: {} }) },
  'POST /api/ai/agents/{agentId}/eval-cases': {
    request: (w) => ({
      params: agent(w),
      body: { name: 'Case', messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], expect: { noToolCalls: true } },
    }),
  },
  'GET /api/ai/agents/{agentId}/eval-cases': { request: (w) => ({ params: agent(w) }) },
  // Ids of nothing: the allowed callers get the documented 404, the others their refusal before it.
  'DELETE /api/ai/agents/{agentId}/eval-cases/{caseId}': {
    request: (w) => ({ params: { ...agent(w), caseId: '01900000-0000-7000-8000-00000000dead' } }),
    status: 404,
  },
  'POST /api/ai/agents/{agentId}/eval-runs': { request: (w) => ({ params: agent(w), body: {} }), wave: 2 },
  'GET /api/ai/agents/{agentId}/eval-runs': { request: (w) => ({ params: agent(w) }) },
  'GET /api/ai/agents/{agentId}/eval-runs/{runId}': {
    request: (w) => ({ params: { ...agent(w), runId: '01900000-0000-7000-8000-00000000dead' } }),
    status: 404,
  },
  'POST /api/ai/agents/{agentId}/copies': { request: (w) => ({ params: { agentId: w.agentId }, body: { organizationId: w.id } }) },
  'DELETE /api/organization/my/members/{userId}': { request: (w) => ({ params: { userId: w.doomedMemberId } }), wave: 2 },
  'PATCH /api/organization/my': { request: (w) => ({ body: { name: `${w.name} ${w.canary}` } }) },
  'POST /api/ai/agents': { request: (w) => ({ body: { name: `Walked ${w.canary}` } }) },
  'GET /api/ai/agents': { request: () => ({}) },
  'GET /api/ai/agents/{agentId}': { request: (w) => ({ params: agent(w) }) },
  'PATCH /api/ai/agents/{agentId}': { request: (w) => ({ params: agent(w), body: { description: `Walked ${w.canary}` } }) },
  'DELETE /api/ai/agents/{agentId}': { request: (w) => ({ params: { agentId: w.doomedAgentId } }), wave: 2 },
  'PUT /api/ai/agents/{agentId}/tools': { request: (w) => ({ params: agent(w), body: tools }) },
  'GET /api/ai/agents/{agentId}/tools': { request: (w) => ({ params: agent(w) }) },
  'GET /api/ai/agents/{agentId}/tools/effective': { request: (w) => ({ params: agent(w) }) },
  'POST /api/ai/agents/{agentId}/tool-overrides': { request: (w) => ({ params: agent(w), body: { toolName: 'fetch_url' } }) },
  'GET /api/ai/agents/{agentId}/tool-overrides': { request: (w) => ({ params: agent(w) }) },
  'DELETE /api/ai/agents/{agentId}/tool-overrides/{toolName}': {
    request: (w) => ({ params: { ...agent(w), toolName: 'web_search' } }),
    wave: 2,
  },
  'POST /api/ai/agents/{agentId}/documents': {
    request: (w) => ({ params: agent(w), body: { name: `walked-${w.canary}.md`, text: `# Walked\n\n${w.canary}` } }),
  },
  'GET /api/ai/agents/{agentId}/documents': { request: (w) => ({ params: agent(w) }) },
  'DELETE /api/ai/agents/{agentId}/documents/{documentId}': {
    request: (w) => ({ params: { ...agent(w), documentId: w.doomedDocumentId } }),
    wave: 2,
  },
  'POST /api/ai/agents/{agentId}/mcp-servers': {
    request: (w) => ({ params: agent(w), body: { name: `Walked ${w.canary}`, transportType: 'http', url: 'http://127.0.0.1:9/walked' } }),
  },
  'GET /api/ai/agents/{agentId}/mcp-servers': { request: (w) => ({ params: agent(w) }) },
  'GET /api/ai/agents/{agentId}/mcp-servers/{serverId}': { request: (w) => ({ params: { ...agent(w), serverId: w.serverId } }) },
  'PATCH /api/ai/agents/{agentId}/mcp-servers/{serverId}': {
    request: (w) => ({ params: { ...agent(w), serverId: w.serverId }, body: { name: `Renamed ${w.canary}` } }),
  },
  'DELETE /api/ai/agents/{agentId}/mcp-servers/{serverId}': {
    request: (w) => ({ params: { ...agent(w), serverId: w.doomedServerId } }),
    wave: 2,
  },
  // Nothing listens at the server's address: the documented 502; a server without OAuth: the documented 409.
  'GET /api/ai/agents/{agentId}/mcp-servers/{serverId}/tools': {
    request: (w) => ({ params: { ...agent(w), serverId: w.serverId } }),
    status: 502,
  },
  'POST /api/ai/agents/{agentId}/mcp-servers/{serverId}/oauth/initiate': {
    request: (w) => ({ params: { ...agent(w), serverId: w.serverId } }),
    status: 409,
  },
  'GET /api/ai/org-usage/time-series': usage,
  'GET /api/ai/org-usage/projection': usage,
  'GET /api/ai/org-usage/model-efficiency': usage,
  'GET /api/ai/org-usage/end-users': usage,
  'GET /api/ai/org-usage/heatmap': usage,
  'GET /api/ai/org-usage/cache-savings': usage,
  'GET /api/ai/org-usage/summary': usage,
  'GET /api/ai/org-usage/daily': usage,
  'GET /api/ai/org-usage/by-agent': usage,
  'POST /api/ai/agents/{agentId}/chat': {
    request: (w, as) => ({
      params: agent(w),
      body: {
        id: `walk-${as}-${w.canary}`,
        messages: [{ id: `m-${as}`, role: 'user', parts: [{ type: 'text', text: `Hi ${w.canary}` }] }],
      },
    }),
  },
  'GET /api/ai/agents/{agentId}/conversations': { request: (w) => ({ params: agent(w) }) },
  'GET /api/ai/agents/{agentId}/conversations/{conversationId}': {
    request: (w, as) => ({ params: { ...agent(w), conversationId: conversationOf(w, as) } }),
  },
  'DELETE /api/ai/agents/{agentId}/conversations/{conversationId}': {
    request: (w, as) => ({ params: { ...agent(w), conversationId: as === 'agency' ? w.doomedConversation : w.memberDoomedConversation } }),
    wave: 2,
  },
  // No turn is running in it: 204, nothing to resume.
  'GET /api/ai/agents/{agentId}/chat/{conversationId}/stream': {
    request: (w, as) => ({ params: { ...agent(w), conversationId: conversationOf(w, as) } }),
    status: 204,
  },
  'POST /api/ai/agents/{agentId}/chat/{conversationId}/stop': {
    request: (w, as) => ({ params: { ...agent(w), conversationId: conversationOf(w, as) } }),
  },
  'PUT /api/ai/provider-key': { request: () => ({ body: { apiKey: 'sk-walked-provider-key-0001' } }) },
  'GET /api/ai/provider-key': { request: () => ({}) },
  'DELETE /api/ai/provider-key': { request: () => ({}), wave: 2 },
  'GET /api/ai/models': { request: () => ({}) },
  'PUT /api/ai/org-usage/budget': { request: () => ({ body: { monthlyLimitUsd: 250 } }) },
  'GET /api/ai/org-usage/budget': { request: () => ({}) },
  'DELETE /api/ai/org-usage/budget': { request: () => ({}), wave: 2 },
  'GET /api/ai/org-usage/budgets': { request: () => ({}) },
  'PUT /api/ai/agents/{agentId}/channel': {
    request: (w) => ({ params: agent(w), body: { enabled: true, allowedOrigins: ['https://shop.example.com'], approvals: 'staff' } }),
  },
  'GET /api/ai/agents/{agentId}/channel': { request: (w) => ({ params: agent(w) }) },
  'POST /api/ai/agents/{agentId}/channel/secret': { request: (w) => ({ params: agent(w) }) },
  'GET /api/ai/approvals': { request: () => ({ query: 'status=pending' }) },
  'POST /api/ai/approvals/{approvalId}': {
    request: (w, as) => ({ params: { approvalId: w.approvals[as === 'agency' ? 0 : 1] }, body: { approved: false, reason: 'walked' } }),
  },
  'GET /api/ai/agents/{agentId}/end-user-conversations': { request: (w) => ({ params: agent(w) }) },
  'GET /api/ai/agents/{agentId}/end-user-conversations/{conversationId}': {
    request: (w) => ({ params: { ...agent(w), conversationId: w.endUserConversationId } }),
  },
};
