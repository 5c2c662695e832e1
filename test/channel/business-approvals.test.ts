import anyTest from 'ava';
import { listOutboxMessagesTo } from '../../sql/notification-outbox.ts';
import { AGENTS, ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { chatConfig, provider, serve, userMessage } from '../chat/support.ts';
import { lastMessageTo, runOutboxWorker } from '../identity/principals.ts';
import { anonymousSession, putChannel, SHOP, type T } from './support.ts';

const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const bakeryAgent = AGENTS.bakeryHelper.id;
const bakery = ORGANIZATIONS.demoBakery.id;

const bearer = async (t: T, email: string) => `Bearer ${await t.context.t.login(email)}`;

test("an end user's approval on a business's agent is listed, mailed and answered in that business, never in the agency's own inbox", async (t) => {
  const peer = await provider(t, (request) =>
    request.messages.some((message) => message.role === 'tool')
      ? { kind: 'text', text: 'Here are the documents.' }
      : { kind: 'tool-call', toolName: 'list_documents', input: {} },
  );
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const bakeryOwner = await bearer(t, 'bakery@demo.test');
  const agencyOwner = await bearer(t, 'owner@demo.test');
  const otherOwner = await bearer(t, 'owner@other.test');
  await t.context.t
    .http()
    .put(`/api/ai/agents/${bakeryAgent}/tools`)
    .set('authorization', bakeryOwner)
    .send({ tools: [{ toolName: 'list_documents', permissionStatus: 'needs_approval', providerKey: 'knowledge' }] })
    .expect(200);
  const { publishableKey } = await putChannel(t, { approvals: 'staff' }, bakeryAgent, 'bakery@demo.test');
  const session = await anonymousSession(t, publishableKey);
  const turn = await fetch(`${base}/api/public/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.sessionToken}`, 'content-type': 'application/json', origin: SHOP },
    body: JSON.stringify({ id: 'bakery-1', messages: [userMessage('list the documents', 'u-bakery-1')] }),
  });
  t.regex(await turn.text(), /"type":"tool-approval-request"/);

  const inbox = (token: string, organizationId?: string) => {
    const request = t.context.t.http().get('/api/ai/approvals').set('authorization', token);
    return organizationId ? request.set('x-org-id', organizationId) : request;
  };
  const inBakery = await inbox(bakeryOwner).expect(200);
  t.is(inBakery.body.approvals.length, 1);
  const approval = inBakery.body.approvals[0] as { id: string; agentId: string };
  t.is(approval.agentId, bakeryAgent);
  // The agency sees it when acting in the business, not in its own inbox; another agency not at all.
  t.deepEqual(
    (await inbox(agencyOwner, bakery).expect(200)).body.approvals.map((item: { id: string }) => item.id),
    [approval.id],
  );
  t.false((await inbox(agencyOwner).expect(200)).body.approvals.some((item: { id: string }) => item.id === approval.id));
  t.is((await inbox(otherOwner, bakery)).status, 403);
  const fromAgency = await t.context.t
    .http()
    .post(`/api/ai/approvals/${approval.id}`)
    .set('authorization', agencyOwner)
    .send({ approved: true });
  t.is(fromAgency.body.errorCode, 'AI.APPROVAL_NOT_FOUND', "the agency's own inbox cannot answer it");

  // The mail went to the business's staff who may answer it, and to nobody of another organization.
  const mail = await lastMessageTo(t, 'bakery@demo.test');
  t.is(mail.template, 'approval-pending');
  t.true(mail.text.includes(AGENTS.bakeryHelper.name));
  await runOutboxWorker(t);
  for (const email of ['owner@demo.test', 'member@demo.test', 'owner@other.test']) {
    const sent = await listOutboxMessagesTo(t.context.t.db.pool, email);
    t.false(
      sent.some((message) => message.template === 'approval-pending'),
      `no approval mail to ${email}`,
    );
  }

  // Agency staff acting in the business answer it there.
  const answered = await fetch(`${base}/api/ai/approvals/${approval.id}`, {
    method: 'POST',
    headers: { authorization: agencyOwner, 'x-org-id': bakery, 'content-type': 'application/json' },
    body: JSON.stringify({ approved: true }),
  });
  t.is(answered.status, 200);
  t.like(await answered.json(), { id: approval.id, status: 'answered' });
});
