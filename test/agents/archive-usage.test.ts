import anyTest, { type ExecutionContext } from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { withTestApp, type TestContext } from '../helpers/app.ts';
import { createApiKey, usageEvent } from '../ingest/support.ts';
import { as } from '../tools/support.ts';

const test = withTestApp(anyTest);

const WINDOW = { from: '2026-04-01T00:00:00.000Z', to: '2026-04-02T00:00:00.000Z' };
const AT = '2026-04-01T12:00:00.000Z';
const nanos = (iso: string, plusMs = 0) => `${BigInt(Date.parse(iso) + plusMs) * 1_000_000n}`;

/** One OTLP/JSON span of a model call reporting `agentId` (gen_ai.agent.id). */
const otlpSpan = (agentId: string) => ({
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'outside-agent' } }] },
      scopeSpans: [
        {
          scope: { name: 'usage-test' },
          spans: [
            {
              traceId: '5b8efff798038103d269b633813fc60c',
              spanId: 'eee19b7ec3c1b174',
              name: 'chat gpt-4o',
              kind: 3,
              startTimeUnixNano: nanos(AT),
              endTimeUnixNano: nanos(AT, 800),
              attributes: [
                { key: 'gen_ai.request.model', value: { stringValue: 'otlp/model' } },
                { key: 'gen_ai.usage.input_tokens', value: { intValue: '300' } },
                { key: 'gen_ai.usage.output_tokens', value: { intValue: '100' } },
                { key: 'gen_ai.agent.id', value: { stringValue: agentId } },
              ],
            },
          ],
        },
      ],
    },
  ],
});

const agentOfRows = (t: ExecutionContext<TestContext>, agentId: string) =>
  t.context.t.db.pool.anyFirst(sql.type(z.strictObject({ modelId: z.string() }))`
    SELECT model_id AS "modelId" FROM usage_events WHERE agent_id = ${agentId} ORDER BY model_id`);

test("an archived agent's usage is still accepted from the events API and OTLP, and analytics keep counting it", async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const agentId = (await owner.post('/api/ai/agents', { name: 'Seasonal Bot' }).expect(201)).body.id as string;
  const before = usageEvent({ agentId, modelId: 'before/model', createdAt: AT, inputTokens: 1000, outputTokens: 500, costUsd: 0.5 });
  t.like((await owner.post('/api/ai/org-usage/events', { events: [before] }).expect(200)).body, { accepted: 1, duplicates: 0 });

  await owner.delete(`/api/ai/agents/${agentId}`).expect(204);

  // Usage reported after the archive (late exports, retries) names the agent all the same.
  const after = usageEvent({ agentId, modelId: 'after/model', createdAt: AT, inputTokens: 200, outputTokens: 100, costUsd: 0.25 });
  t.like((await owner.post('/api/ai/org-usage/events', { events: [after] }).expect(200)).body, { accepted: 1, duplicates: 0 });
  const { key } = await createApiKey(t.context.t, owner.token);
  const otlp = await t.context.t
    .http()
    .post('/api/otlp/v1/traces')
    .set('authorization', `Bearer ${key}`)
    .set('content-type', 'application/json')
    .send(JSON.stringify(otlpSpan(agentId)))
    .expect(200);
  t.deepEqual(otlp.body, { partialSuccess: { rejectedSpans: 0, errorMessage: '' } });
  t.deepEqual(await agentOfRows(t, agentId), ['after/model', 'before/model', 'otlp/model']);

  const byAgent = await owner.get(`/api/ai/org-usage/by-agent?from=${WINDOW.from}&to=${WINDOW.to}`).expect(200);
  const row = (byAgent.body as { agentId: string | null }[]).find((item) => item.agentId === agentId);
  t.like(row, { agentId, agentName: 'Seasonal Bot', totalTokens: 1500 + 300 + 400, executionsCount: 3 });
  t.is((row as unknown as { totalCostUsd: number }).totalCostUsd.toFixed(2), '0.75');
});
