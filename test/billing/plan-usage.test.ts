import anyTest from 'ava';
import request from 'supertest';
import { sql } from 'slonik';
import { USERS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { usageEvent } from '../ingest/support.ts';
import { as, business, owner, plan, type T } from './support.ts';

// How much of its plan a business uses (docs/billing.md, "How much of a plan is used").
const test = withTestApp(anyTest);

/** An app over the file's database whose clock reads `instant`. */
const at = (t: T, instant: string) => {
  const server = t.context.t.rebuild({ clock: () => new Date(instant) }).callback();
  return () => request(server);
};

const LIMITS = { maxAgents: 5, maxUsers: 4, maxEndUserMessagesPerMonth: 100, maxDocumentsMb: 2, monthlyUsageUsd: 10 };

test.serial('a business reads its plan’s limits beside what it uses this UTC month, each counted as its limit counts it', async (t) => {
  const october = at(t, '2026-10-20T12:00:00.000Z');
  const planId = await plan(t, { name: 'Measured', limits: LIMITS });
  const shop = await business(t, 'Measured Shop', planId);
  const staff = as(t, await owner(t), shop.id);
  const agents = await Promise.all(
    ['One', 'Two', 'Three'].map(async (name) => (await staff.post('/api/ai/agents', { name }).expect(201)).body.id),
  );
  await t.context.t
    .http()
    .delete(`/api/ai/agents/${agents[0]}`)
    .set('authorization', `Bearer ${await owner(t)}`)
    .set('x-org-id', shop.id)
    .expect(204);
  // 1.5 MB of documents, and 37 end-user messages in October beside 9 in September.
  await t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO knowledge_documents (id, organization_id, agent_id, name, content_type, bytes, chunk_count, text_bytes, created_at)
    VALUES (gen_random_uuid(), ${shop.id}, ${agents[1]}, 'a', 'text/plain', ${1024 * 1024}, 1, 1, now()),
           (gen_random_uuid(), ${shop.id}, ${agents[2]}, 'b', 'text/plain', ${512 * 1024}, 1, 1, now())`);
  await t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO organization_monthly_messages (organization_id, month, messages)
    VALUES (${shop.id}, '2026-10-01', 37), (${shop.id}, '2026-09-01', 9)`);
  // October's usage, platform key and own key alike; the last millisecond of September and November's first are not.
  await staff
    .post('/api/ai/org-usage/events', {
      events: [
        usageEvent({ costUsd: 1.25, createdAt: '2026-10-01T00:00:00.000Z' }),
        usageEvent({ costUsd: 0.0042, createdAt: '2026-10-19T08:00:00.000Z', source: 'byok' }),
        usageEvent({ costUsd: 3, createdAt: '2026-09-30T23:59:59.999Z' }),
        usageEvent({ costUsd: 5, createdAt: '2026-11-01T00:00:00.000Z' }),
      ],
    })
    .expect(200);

  const shopOwner = await as(t, shop.token, undefined, october).get('/api/organization/my/plan-usage').expect(200);
  t.deepEqual(shopOwner.body, {
    month: '2026-10',
    plan: { id: planId, name: 'Measured' },
    limits: LIMITS,
    used: { agents: 2, users: 1, endUserMessages: 37, documentsMb: 1.5, usageUsd: 1.2542 },
  });
  // The agency's staff acting in the business read the same figures.
  const agencyStaff = await as(t, await owner(t), shop.id, october)
    .get('/api/organization/my/plan-usage')
    .expect(200);
  t.deepEqual(agencyStaff.body, shopOwner.body);
});

test.serial('an organization on no plan reads every limit null; a foreign caller gets nothing of the business', async (t) => {
  const agency = await as(t, await owner(t))
    .get('/api/organization/my/plan-usage')
    .expect(200);
  t.is(agency.body.plan, null);
  t.deepEqual(agency.body.limits, {
    maxAgents: null,
    maxUsers: null,
    maxEndUserMessagesPerMonth: null,
    maxDocumentsMb: null,
    monthlyUsageUsd: null,
  });
  t.true(agency.body.used.agents >= 1, "the agency's own agents");

  const shop = await business(t, 'Private Shop');
  const stranger = await t.context.t.login(USERS.otherOwner.email);
  const foreign = await as(t, stranger, shop.id).get('/api/organization/my/plan-usage');
  t.is(foreign.status, 403);
  t.is(foreign.body.used, undefined);
  t.is(foreign.body.plan, undefined);
  // Another business's owner reads its own figures, never the shop's.
  const neighbour = await business(t, 'Neighbour');
  await as(t, shop.token).post('/api/ai/agents', { name: 'Only in the shop' }).expect(201);
  const own = await as(t, neighbour.token).get('/api/organization/my/plan-usage').expect(200);
  t.is(own.body.used.agents, 0);
  t.is((await as(t, neighbour.token, shop.id).get('/api/organization/my/plan-usage')).status, 403);
});
