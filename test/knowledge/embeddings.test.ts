import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { searchKnowledge } from '../../app/knowledge/service.ts';
import { searchPassages } from '../../sql/knowledge.ts';
import { seedDemoKnowledge } from '../../seeds/demo-knowledge.ts';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { testConfig, withTestApp } from '../helpers/app.ts';
import { startEmbeddingPeer } from './embedding-peer.ts';

const test = withTestApp(anyTest);

const scope = { organizationId: ORGANIZATIONS.demoAgency.id, agentId: AGENTS.support.id, userId: USERS.owner.id };

test.serial('with AI_EMBEDDING_MODEL, chunks and questions are embedded, usage is recorded and the rankings are fused', async (t) => {
  const peer = await startEmbeddingPeer();
  t.teardown(() => peer.close());
  const base = testConfig();
  const config = {
    ...base,
    ai: { ...base.ai, gatewayUrl: peer.url, gatewayApiKey: 'sk-platform-test' },
    tools: { ...base.tools, embeddingModel: 'test/concepts' },
  };
  const deps = t.context.t.rebuild({ config }).deps;
  t.is(await seedDemoKnowledge(deps), 4);
  t.true(peer.requests.length >= 4);
  t.true(peer.requests.every((request) => request.model === 'test/concepts'));
  const embedded = await t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ n: z.number() }))`
    SELECT count(*)::int AS n FROM knowledge_chunks WHERE agent_id = ${scope.agentId} AND embedding IS NULL`);
  t.is(embedded, 0);

  // Full-text search alone puts "Tracking a parcel" first for this question (it shares "parcel");
  // the embedding ranking knows "arrive" is about delivery times, and the fused ranking follows it.
  const question = 'When will my parcel arrive in the US?';
  const [lexical] = await searchPassages(deps.db, scope.agentId, question, 1);
  t.is(lexical!.heading, 'Shipping > Tracking a parcel');
  const [fused] = await searchKnowledge(deps, scope, question, 3);
  t.is(fused!.heading, 'Shipping > Delivery times');
  t.true(fused!.score > 0 && fused!.score <= 2 / 61);

  const usage = await t.context.t.db.pool.any(sql.type(z.strictObject({ model: z.string(), tokens: z.number() }))`
    SELECT model_id AS model, input_tokens::int AS tokens FROM usage_events WHERE model_id = 'test/concepts' AND agent_id = ${scope.agentId}`);
  t.true(usage.length >= 5);
  t.true(usage.every((row) => row.tokens > 0));
});
