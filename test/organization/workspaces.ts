/**
 * Client workspaces built through the API as an agency builds them (test/organization/tenancy.test.ts):
 * businesses under Demo Agency, each with an owner, a business member, agents with tools, a
 * channel, documents, MCP servers, staff conversations and end users' conversations waiting for
 * the staff's approval (the demo model, NODE_ENV=development), a budget and a tool override. Every
 * name and text carries the workspace's canary, so that an answer carrying another workspace's
 * data is found by its text as well as by its ids.
 */
import type { ExecutionContext } from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { hashPassword } from '../../app/identity/passwords.ts';
import { DEMO_PASSWORD, ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { ensureUserRole, ensureVerifiedUser } from '../../sql/fixtures.ts';
import type { TestContext } from '../helpers/app.ts';

type T = ExecutionContext<TestContext>;

const SHOP = 'https://shop.example.com';
/** An MCP server address where nothing listens: listing its tools is the documented 502. */
const DEAD_MCP_URL = 'http://127.0.0.1:9/mcp';

export type Workspace = {
  id: string;
  name: string;
  canary: string;
  ownerToken: string;
  memberToken: string;
  /** A second business member, for the walk's DELETE of a member. */
  doomedMemberId: string;
  agentId: string;
  /** Agents, documents, servers and conversations a DELETE may take (one for each caller that may). */
  doomedAgentId: string;
  documentId: string;
  doomedDocumentId: string;
  serverId: string;
  doomedServerId: string;
  /** Staff conversations (client ids) of the agency's owner acting here and of the member. */
  conversation: string;
  doomedConversation: string;
  memberConversation: string;
  memberDoomedConversation: string;
  endUserConversationId: string;
  /** Pending approvals of end users' turns: one for the agency's staff, one for the member. */
  approvals: [string, string];
  /** Every id and name of this workspace's data: what no other organization's answer may carry. */
  markers: string[];
};

/** A request as `token`, acting in `organizationId` when given (`x-org-id`). */
export function caller(t: T, token: string, organizationId?: string) {
  const http = t.context.t.http();
  const headers = <R extends { set(name: string, value: string): R }>(request: R) => {
    const authed = request.set('authorization', `Bearer ${token}`);
    return organizationId === undefined ? authed : authed.set('x-org-id', organizationId);
  };
  return {
    get: (path: string) => headers(http.get(path)),
    post: (path: string, body: object) => headers(http.post(path)).send(body),
    put: (path: string, body: object) => headers(http.put(path)).send(body),
    patch: (path: string, body: object) => headers(http.patch(path)).send(body),
    delete: (path: string) => headers(http.delete(path)),
  };
}

const idOf = (response: { status: number; body: { id?: string } }, what: string): string => {
  if (response.status !== 201 || typeof response.body.id !== 'string')
    throw new Error(`${what}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.id;
};

const userMessage = (text: string) => ({ id: `u-${uuidv7()}`, role: 'user', parts: [{ type: 'text', text }] });

/** One staff turn on the demo model; answers the conversation's client id. */
async function staffChat(t: T, token: string, organizationId: string | undefined, agentId: string, canary: string): Promise<string> {
  const id = `chat-${uuidv7()}`;
  const answer = await caller(t, token, organizationId).post(`/api/ai/agents/${agentId}/chat`, {
    id,
    messages: [userMessage(`Hello from ${canary}`)],
  });
  if (answer.status !== 200) throw new Error(`staff chat: ${answer.status}`);
  return id;
}

/** An anonymous visitor's turn asking for list_documents, which waits for the staff's approval. */
async function endUserTurn(t: T, publishableKey: string, canary: string): Promise<void> {
  const session = await t.context.t.http().post('/api/public/sessions').set('origin', SHOP).send({ publishableKey }).expect(201);
  const turn = await t.context.t
    .http()
    .post('/api/public/chat')
    .set('origin', SHOP)
    .set('authorization', `Bearer ${session.body.sessionToken as string}`)
    .send({ id: `visit-${uuidv7()}`, messages: [userMessage(`use list_documents for ${canary}`)] });
  if (!turn.text.includes('tool-approval-request')) throw new Error(`end user's turn: ${turn.status} ${turn.text.slice(0, 300)}`);
}

let memberPasswordHash: Promise<string> | undefined;

/** A user of `organizationId` with the `business-member` role, made directly (the walk needs its token, not its mail): its id and token. */
async function businessMember(t: T, organizationId: string, canary: string): Promise<{ id: string; token: string }> {
  const db = t.context.t.db.pool;
  const id = uuidv7();
  const email = `member-${id}@business.test`;
  memberPasswordHash ??= hashPassword(DEMO_PASSWORD);
  await ensureVerifiedUser(db, { id, organizationId, email, name: `Member of ${canary}`, passwordHash: await memberPasswordHash });
  const role = await db.oneFirst(sql.unsafe`SELECT id FROM roles WHERE name = 'business-member'`);
  await ensureUserRole(db, id, role as string);
  return { id, token: await t.context.t.login(email) };
}

/**
 * A business registered under Demo Agency (self-registration, its owner verified), filled by
 * the agency's owner acting in it (`x-org-id`), as an agency sets up a client.
 */
export async function workspace(t: T, name: string, agencyToken: string): Promise<Workspace> {
  const canary = `canary-${name.toLowerCase()}-${uuidv7().slice(-6)}`;
  const email = `owner-${uuidv7()}@business.test`;
  const registered = await t.context.t
    .http()
    .post('/api/identity/auth/user/register/business')
    .send({
      email,
      password: DEMO_PASSWORD,
      name: `Owner of ${canary}`,
      businessName: `${name} ${canary}`,
      agencyId: ORGANIZATIONS.demoAgency.id,
    })
    .expect(201);
  const id = registered.body.organizationId as string;
  await t.context.t.db.pool.query(sql.unsafe`UPDATE users SET email_verified_at = now() WHERE id = ${registered.body.userId}`);
  const ownerToken = await t.context.t.login(email);
  const [{ token: memberToken }, { id: doomedMemberId }] = await Promise.all([
    businessMember(t, id, canary),
    businessMember(t, id, canary),
  ]);
  const agency = caller(t, agencyToken, id);
  const agentId = idOf(await agency.post('/api/ai/agents', { name: `Agent ${canary}`, instructions: `Serve ${canary}` }), 'agent');
  const doomedAgentId = idOf(await agency.post('/api/ai/agents', { name: `Doomed ${canary}` }), 'doomed agent');
  await agency
    .put(`/api/ai/agents/${agentId}/tools`, {
      tools: [{ toolName: 'list_documents', permissionStatus: 'needs_approval', providerKey: 'knowledge' }],
    })
    .expect(200);
  const channel = await agency
    .put(`/api/ai/agents/${agentId}/channel`, { enabled: true, allowedOrigins: [SHOP], approvals: 'staff' })
    .expect(200);
  const document = (text: string) =>
    agency.post(`/api/ai/agents/${agentId}/documents`, { name: `${text}.md`, text: `# ${text}\n\nAbout ${canary}.` });
  const documentId = idOf(await document(`guide-${canary}`), 'document');
  const doomedDocumentId = idOf(await document(`doomed-${canary}`), 'doomed document');
  const server = (label: string) =>
    agency.post(`/api/ai/agents/${agentId}/mcp-servers`, { name: `${label} ${canary}`, transportType: 'http', url: DEAD_MCP_URL });
  const serverId = idOf(await server('Server'), 'server');
  const doomedServerId = idOf(await server('Doomed'), 'doomed server');
  await agency.post(`/api/ai/agents/${agentId}/tool-overrides`, { toolName: 'web_search' });
  await agency.put('/api/ai/org-usage/budget', { monthlyLimitUsd: 100 }).expect(200);
  const conversation = await staffChat(t, agencyToken, id, agentId, canary);
  const doomedConversation = await staffChat(t, agencyToken, id, agentId, canary);
  const memberConversation = await staffChat(t, memberToken, undefined, agentId, canary);
  const memberDoomedConversation = await staffChat(t, memberToken, undefined, agentId, canary);
  await endUserTurn(t, channel.body.publishableKey as string, canary);
  await endUserTurn(t, channel.body.publishableKey as string, canary);
  const pending = await agency.get('/api/ai/approvals?status=pending').expect(200);
  const approvals = (pending.body.approvals as { id: string; conversationId: string; endUser: { id: string } }[]).map((a) => a);
  if (approvals.length !== 2) throw new Error(`${approvals.length} pending approvals in ${name}`);
  const markers = [
    id,
    doomedMemberId,
    canary,
    agentId,
    doomedAgentId,
    documentId,
    doomedDocumentId,
    serverId,
    doomedServerId,
    conversation,
    doomedConversation,
    memberConversation,
    memberDoomedConversation,
    channel.body.publishableKey as string,
    ...approvals.flatMap((approval) => [approval.id, approval.conversationId, approval.endUser.id]),
  ];
  return {
    id,
    name,
    canary,
    ownerToken,
    memberToken,
    doomedMemberId,
    agentId,
    doomedAgentId,
    documentId,
    doomedDocumentId,
    serverId,
    doomedServerId,
    conversation,
    doomedConversation,
    memberConversation,
    memberDoomedConversation,
    endUserConversationId: approvals[0]!.conversationId,
    approvals: [approvals[0]!.id, approvals[1]!.id],
    markers,
  };
}
