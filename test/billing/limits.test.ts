import anyTest from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { invitationCodeSentTo, PASSWORD } from '../organization/workspace-support.ts';
import { as, business, owner, plan, type T } from './support.ts';

// A business's plan limits at their boundary, each under 20 concurrent requests (docs/billing.md, "Limits").
const test = withTestApp(anyTest);

const count = (t: T, query: ReturnType<typeof sql.unsafe>) =>
  t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ n: z.number() }))`${query}`);

test('maxAgents: 20 agents created at once in a business whose plan allows 3 make 3; the rest are 409 PLANS.LIMIT_REACHED', async (t) => {
  const shop = await business(t, 'Agents', await plan(t, { limits: { maxAgents: 3 } }));
  const staff = as(t, await owner(t), shop.id);
  const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => staff.post('/api/ai/agents', { name: `Agent ${i}` })));
  t.is(responses.filter((response) => response.status === 201).length, 3);
  const refused = responses.filter((response) => response.status === 409);
  t.is(refused.length, 17);
  for (const response of refused) {
    t.is(response.body.errorCode, 'PLANS.LIMIT_REACHED');
    t.deepEqual(response.body.metadata, { limit: 3, value: 3 });
  }
  t.is(await count(t, sql.unsafe`SELECT count(*)::int AS n FROM agents WHERE organization_id = ${shop.id}`), 3);
  // Archiving one frees its place; the agency's own agents are not limited by any plan.
  const agents = await staff.get('/api/ai/agents').expect(200);
  await as(t, await owner(t), shop.id)
    .post(`/api/ai/agents/${agents.body.agents[0].id}/archive`, {})
    .then((r) => r.status);
  await as(t, await owner(t))
    .post('/api/ai/agents', { name: 'Agency agent' })
    .expect(201);
});

test('maxDocumentsMb: 20 uploads at once with room for 5 store 5; the rest are 409 PLANS.LIMIT_REACHED naming the MB', async (t) => {
  const shop = await business(t, 'Docs', await plan(t, { limits: { maxDocumentsMb: 1 } }));
  const staff = as(t, await owner(t), shop.id);
  const agent = (await staff.post('/api/ai/agents', { name: 'Reader' }).expect(201)).body.id as string;
  const text = 'x'.repeat(99) + '\n'; // 100 bytes
  // What is stored already leaves room for exactly five more of these.
  await t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO knowledge_documents (id, organization_id, agent_id, name, content_type, bytes, chunk_count, text_bytes, created_at)
    VALUES (gen_random_uuid(), ${shop.id}, ${agent}, 'filler', 'text/plain', ${1024 * 1024 - 500}, 1, 1, now())`);
  // The document readers take a few at a time and answer the others 503 (readers busy): those are sent again.
  const upload = async (i: number) => {
    for (;;) {
      const response = await staff.post(`/api/ai/agents/${agent}/documents`, { name: `doc-${i}.txt`, text });
      if (response.status !== 503) return response;
    }
  };
  const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => upload(i)));
  t.is(responses.filter((response) => response.status === 201).length, 5, JSON.stringify(responses.map((r) => r.body.errorCode)));
  const refused = responses.filter((response) => response.status === 409);
  t.is(refused.length, 15, JSON.stringify(responses.map((r) => [r.status, r.body])));
  for (const response of refused) {
    t.is(response.body.errorCode, 'PLANS.LIMIT_REACHED');
    t.deepEqual(response.body.metadata, { limit: 1, value: 1 });
  }
  t.is(await count(t, sql.unsafe`SELECT sum(bytes)::int AS n FROM knowledge_documents WHERE organization_id = ${shop.id}`), 1024 * 1024);
});

test('maxUsers: 20 invitations accepted at once into a business whose plan allows 4 (its owner and 3 more) make 3 users; the rest are 409 PLANS.LIMIT_REACHED', async (t) => {
  // Demo Agency's seat capacity is not what this test counts.
  await t.context.t.db.pool.query(sql.unsafe`UPDATE organizations SET user_capacity = NULL WHERE id = ${ORGANIZATIONS.demoAgency.id}`);
  const shop = await business(t, 'Users', await plan(t, { limits: { maxUsers: 4 } }));
  const emails = Array.from({ length: 20 }, () => `${uuidv7()}@staff.test`);
  for (const email of emails) await as(t, shop.token).post('/api/organization/my/invitations', { email, role: 'member' }).expect(201);
  const codes = await Promise.all(emails.map(async (email) => (await invitationCodeSentTo(t, email)).code));
  const responses = await Promise.all(
    emails.map((email, i) =>
      t.context.t
        .http()
        .post('/api/identity/auth/user/accept-invitation')
        .send({ email, code: codes[i], password: PASSWORD, name: 'Staff' }),
    ),
  );
  t.is(responses.filter((response) => response.status === 201).length, 3);
  const refused = responses.filter((response) => response.status === 409);
  t.is(refused.length, 17);
  for (const response of refused) {
    t.is(response.body.errorCode, 'PLANS.LIMIT_REACHED');
    t.deepEqual(response.body.metadata, { limit: 4, value: 4 });
  }
  t.is(await count(t, sql.unsafe`SELECT count(*)::int AS n FROM users WHERE organization_id = ${shop.id} AND type = 'user'`), 4);
  // Full: a new invitation of a user is refused at once; a client is no staff user and is invited.
  const more = await as(t, shop.token).post('/api/organization/my/invitations', { email: `${uuidv7()}@staff.test`, role: 'member' });
  t.like(more.body, { errorCode: 'PLANS.LIMIT_REACHED', metadata: { limit: 4, value: 4 } });
  await as(t, shop.token)
    .post('/api/organization/my/invitations', { email: `${uuidv7()}@client.test`, role: 'client' })
    .expect(201);
});
