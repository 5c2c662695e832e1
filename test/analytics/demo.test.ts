import anyTest from 'ava';
import { GENERATED_MODELS } from '../../seeds/usage-generator.ts';
import { ACTION_TYPES } from '../../sql/usage-window.ts';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest);
const EMBEDDING_MODEL = GENERATED_MODELS.find((model) => model.embedding)!.modelId;

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

test('the demo usage holds all five action types: embeddings on the embedding model, the rest on chat models', async (t) => {
  const now = Date.now();
  const query = { from: new Date(now - 121 * 86_400_000).toISOString(), to: new Date(now + 60_000).toISOString() };
  const auth = `Bearer ${await t.context.t.login('owner@demo.test')}`;
  const http = t.context.t.http;
  const series = await http()
    .get('/api/ai/org-usage/time-series')
    .query({ ...query, groupBy: 'action' })
    .set('authorization', auth)
    .expect(200);
  const tokens = new Map<string, number>();
  for (const bucket of series.body.buckets as { series: Record<string, { totalTokens: number }> }[])
    for (const [action, value] of Object.entries(bucket.series)) tokens.set(action, (tokens.get(action) ?? 0) + value.totalTokens);
  t.deepEqual([...tokens.keys()].sort(), [...ACTION_TYPES].sort());
  for (const action of ACTION_TYPES) {
    t.true(tokens.get(action)! > 0, action);
    const models = await http()
      .get('/api/ai/org-usage/model-efficiency')
      .query({ ...query, action })
      .set('authorization', auth)
      .expect(200);
    const ids = (models.body as { modelId: string; executionsCount: number }[]).map((model) => model.modelId);
    const embeds = action === 'rag_query_embedding' || action === 'document_indexing';
    t.true(ids.length > 0, action);
    t.is(
      ids.every((id) => id === EMBEDDING_MODEL),
      embeds,
      action,
    );
  }
});
