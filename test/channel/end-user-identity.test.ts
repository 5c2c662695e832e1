import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { userHashOf } from '../../app/channel/secrets.ts';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { chatConfig, provider, serve, userMessage } from '../chat/support.ts';
import { lastMessageTo } from '../identity/principals.ts';
import { openSession, putChannel, rotateSecret, SHOP, type T } from './support.ts';

// Who an end user is, as they tell it and as staff read it (docs/channel.md, "Identity").
const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const agent = AGENTS.support.id;

const endUsers = (t: T) =>
  t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ n: z.number() }))`SELECT count(*)::int AS n FROM end_users`);

test.serial(
  "a session says how its end user was vouched for: an anonymous visitor, the business's verified user, the organization's client",
  async (t) => {
    const { publishableKey } = await putChannel(t);
    const secret = await rotateSecret(t);
    const visitor = await openSession(t, { publishableKey });
    t.like(visitor.body, { endUser: { verified: false, kind: 'visitor' } });
    const verified = await openSession(t, { publishableKey, user: { id: 'u-1', hash: userHashOf(secret, 'u-1') } });
    t.like(verified.body, { endUser: { verified: true, kind: 'verified' } });
    const client = await t.context.t.login('customer@demo.test', undefined, 'client');
    const clientSession = await openSession(t, { publishableKey }, SHOP, { authorization: `Bearer ${client}` });
    t.is(clientSession.status, 201);
    t.like(clientSession.body, { endUser: { verified: true, kind: 'client' } });
  },
);

test.serial(
  "an end user's name and email are one line: a control character, a line separator or a bidi override is 400, and no end user is made",
  async (t) => {
    const { publishableKey } = await putChannel(t);
    const secret = await rotateSecret(t);
    const hash = userHashOf(secret, 'u-2');
    const before = await endUsers(t);
    for (const [field, value] of [
      ['name', 'Support Lead\nACTION NEEDED: approve at https://evil.test/login'],
      ['name', 'Support Lead\r'],
      ['name', 'a\u0085b'],
      ['name', 'a\u2028b'],
      ['name', 'Lead \u202Enimda'],
      ['email', 'lead@shop.example.com\nBcc: all@shop.example.com'],
      ['email', 'lead@shop.example.com\u2028'],
    ] as const) {
      const response = await openSession(t, { publishableKey, user: { id: 'u-2', hash, [field]: value } });
      t.is(response.status, 400, JSON.stringify(value));
      t.deepEqual(response.body.errors[0].path, ['user', field]);
    }
    t.is(await endUsers(t), before);
    const fine = await openSession(t, { publishableKey, user: { id: 'u-2', hash, name: 'Zoë "Z" Ünal', email: 'zoe@shop.example.com' } });
    t.is(fine.status, 201);
  },
);

test.serial(
  'staff read how an end user was vouched for and the name and email they gave, quoted as theirs: the inbox, the transcripts, the approval mail',
  async (t) => {
    const peer = await provider(t, () => ({ kind: 'tool-call', toolName: 'list_documents', input: {} }));
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    const owner = `Bearer ${await t.context.t.login('owner@demo.test')}`;
    await t.context.t
      .http()
      .put(`/api/ai/agents/${agent}/tools`)
      .set('authorization', owner)
      .send({ tools: [{ toolName: 'list_documents', permissionStatus: 'needs_approval', providerKey: 'knowledge' }] })
      .expect(200);
    const { publishableKey } = await putChannel(t, { approvals: 'staff' });
    const secret = await rotateSecret(t);
    const user = { id: 'cust-9', hash: userHashOf(secret, 'cust-9'), name: 'Support Lead "the boss"', email: 'lead@shop.example.com' };
    const session = await openSession(t, { publishableKey, user });
    const token = session.body.sessionToken as string;
    const turn = await fetch(`${base}/api/public/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', origin: SHOP },
      body: JSON.stringify({ id: 'named', messages: [userMessage('list the documents', 'n1')] }),
    });
    t.regex(await turn.text(), /tool-approval-request/);

    const expected = {
      id: session.body.endUser.id,
      externalId: 'cust-9',
      verified: true,
      kind: 'verified',
      name: user.name,
      email: user.email,
    };
    const inbox = await t.context.t.http().get('/api/ai/approvals').set('authorization', owner).expect(200);
    t.deepEqual(inbox.body.approvals[0].endUser, expected);
    const list = await t.context.t.http().get(`/api/ai/agents/${agent}/end-user-conversations`).set('authorization', owner).expect(200);
    const listed = (list.body.conversations as { id: string; endUser: { id: string } }[]).find((item) => item.endUser.id === expected.id)!;
    t.deepEqual(listed.endUser, expected);
    const detail = await t.context.t
      .http()
      .get(`/api/ai/agents/${agent}/end-user-conversations/${listed.id}`)
      .set('authorization', owner)
      .expect(200);
    t.deepEqual(detail.body.endUser, expected);

    const mail = await lastMessageTo(t, 'owner@demo.test');
    t.is(mail.template, 'approval-pending');
    t.true(mail.text.includes('in a conversation with a verified user of the business (its user id "cust-9")'), mail.text);
    t.true(
      mail.text.includes(
        'The end user gave the name "Support Lead \\"the boss\\"" and the email "lead@shop.example.com", in their own words (not checked by us).',
      ),
      mail.text,
    );
    await putChannel(t);
  },
);
