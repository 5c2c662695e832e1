import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest);

test('the demo owner sees 120 days of demo usage with one unpriced model, the demo member gets a 403', async (t) => {
  const now = Date.now();
  const query = { from: new Date(now - 121 * 86_400_000).toISOString(), to: new Date(now + 60_000).toISOString() };
  const owner = await t.context.t.login('owner@demo.test');
  const savings = await t.context.t
    .http()
    .get('/api/ai/org-usage/cache-savings')
    .query(query)
    .set('authorization', `Bearer ${owner}`)
    .expect(200);
  t.is(savings.body.skippedModelsCount, 1);
  t.true(savings.body.estimatedSavingsUsd > 0);
  const projection = await t.context.t
    .http()
    .get('/api/ai/org-usage/projection')
    .query(query)
    .set('authorization', `Bearer ${owner}`)
    .expect(200);
  t.is(projection.body.status, 'ok');
  const member = await t.context.t.login('member@demo.test');
  await t.context.t.http().get('/api/ai/org-usage/cache-savings').query(query).set('authorization', `Bearer ${member}`).expect(403);
  const other = await t.context.t.login('owner@other.test');
  const otherSummary = await t.context.t
    .http()
    .get('/api/ai/org-usage/summary')
    .query(query)
    .set('authorization', `Bearer ${other}`)
    .expect(200);
  t.is(otherSummary.body.executionsCount, 0);
});
