import anyTest from 'ava';
import { sql } from 'slonik';
import request from 'supertest';
import { evaluationRuns } from '../../app/evaluations/runner.ts';
import { withTestApp } from '../helpers/app.ts';
import { startOpenAiPeer } from '../helpers/openai-peer.ts';
import { chatConfig } from '../chat/support.ts';

const test = withTestApp(anyTest);

test('the model calls of a run are reserved against an enforced budget: once it is spent, the next case is not sent and the run ends error', async (t) => {
  // Each call costs $1 (1000 prompt tokens at $1000 per million); the budget is $1.50.
  const peer = await startOpenAiPeer(() => ({ kind: 'text', text: 'A paid answer.', usage: { prompt: 1000, completion: 0 } }));
  t.teardown(() => peer.close());
  await t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
    VALUES ('test/eval-budget', 1000, 0, 0) ON CONFLICT (model_id) DO NOTHING`);
  const app = t.context.t.rebuild({ config: chatConfig({ gatewayUrl: peer.url }) });
  const auth = { authorization: `Bearer ${await t.context.t.login('owner@other.test')}` };
  const http = () => request(app.callback());
  const agent = (
    await http().post('/api/ai/agents').set(auth).send({ name: 'Paid', modelId: 'test/eval-budget', maxOutputTokens: 10 }).expect(201)
  ).body;
  const base = `/api/ai/agents/${agent.id}`;
  for (const name of ['One', 'Two', 'Three', 'Four', 'Five', 'Six'])
    await http()
      .post(`${base}/eval-cases`)
      .set(auth)
      .send({ name, messages: [{ role: 'user', parts: [{ type: 'text', text: `Question ${name}` }] }], expect: { contains: ['paid'] } })
      .expect(201);
  await http().put('/api/ai/org-usage/budget').set(auth).send({ monthlyLimitUsd: 1.5, enforce: true }).expect(200);
  const started = await http().post(`${base}/eval-runs`).set(auth).send({}).expect(202);
  await evaluationRuns(app.deps).idle();
  const run = (await http().get(`${base}/eval-runs/${started.body.id}`).set(auth).expect(200)).body;
  t.is(run.status, 'error');
  const refused = run.results.filter((result: { reasons: string[] }) =>
    result.reasons.some((reason) => reason.startsWith('AI.BUDGET_EXCEEDED')),
  );
  t.true(refused.length > 0);
  t.true(peer.requests.length < 6);
  t.is(run.results.length, 6);
  const spent = await t.context.t.db.pool.oneFirst(sql.unsafe`
    SELECT coalesce(sum(cost_usd), 0)::float8 FROM usage_events WHERE agent_id = ${agent.id}`);
  t.is(spent, peer.requests.length);
});
