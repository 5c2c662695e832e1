import anyTest, { type ExecutionContext } from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { sql } from 'slonik';
import { z } from 'zod';
import { createApp } from '../../app/app.ts';
import type { AppDeps } from '../../app/core/deps.ts';
import { openDatabase } from '../../app/db/open.ts';
import { knowledgeVectorStore, searchKnowledge } from '../../app/knowledge/service.ts';
import { searchKnowledgeBaseTool } from '../../app/tools/knowledge-tools.ts';
import { searchPassages } from '../../sql/knowledge-search.ts';
import { seedDemoKnowledge } from '../../seeds/demo-knowledge.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { testConfig, withTestApp } from '../helpers/app.ts';
import { startEmbeddingPeer, type EmbeddingPeer } from './embedding-peer.ts';

const test = withTestApp(anyTest);

const scope = { organizationId: ORGANIZATIONS.demoAgency.id, agentId: AGENTS.support.id, userId: USERS.owner.id };

const embeddingConfig = (peer: EmbeddingPeer) => {
  const base = testConfig();
  return {
    ...base,
    ai: { ...base.ai, gatewayUrl: peer.url, gatewayApiKey: 'sk-platform-test' },
    tools: { ...base.tools, embeddingModel: 'test/concepts' },
  };
};

const count = z.strictObject({ n: z.number() });

/** The platform pays only for a priced model: the embedding model gets a price. */
const priceEmbeddingModel = (db: AppDeps['db'], usdPerMTok = 0.02) =>
  db.query(sql.unsafe`
    INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
    VALUES ('test/concepts', ${usdPerMTok}, 0, 0)
    ON CONFLICT (model_id) DO UPDATE SET input_usd_per_mtok = excluded.input_usd_per_mtok`);

/** Seeds the help center with embeddings, then checks the fused ranking answers what full-text search alone misses. */
async function fusedSearchFindsTheMeaning(t: ExecutionContext, deps: AppDeps, peer: EmbeddingPeer) {
  t.is(await seedDemoKnowledge(deps), 4);
  t.true(peer.requests.length >= 4);
  t.true(peer.requests.every((request) => request.model === 'test/concepts'));

  // Full-text search alone puts "Tracking a parcel" first for this question (it shares "parcel");
  // the embedding ranking knows "arrive" is about delivery times, and the fused ranking follows it.
  const question = 'When will my parcel arrive in the US?';
  const [lexical] = await searchPassages(deps.db, scope.agentId, question, 1, 2_000);
  t.is(lexical!.heading, 'Shipping > Tracking a parcel');
  const [fused] = await searchKnowledge(deps, scope, question, 3);
  t.is(fused!.heading, 'Shipping > Delivery times');
  t.true(fused!.score > 0 && fused!.score <= 2 / 61);
}

test.serial('with AI_EMBEDDING_MODEL, chunks and questions are embedded, usage is recorded and the rankings are fused', async (t) => {
  const peer = await startEmbeddingPeer();
  t.teardown(() => peer.close());
  const deps = t.context.t.rebuild({ config: embeddingConfig(peer) }).deps;
  await priceEmbeddingModel(deps.db);
  // This server has no pgvector (Debian 12's PostgreSQL 15): the service scans the float32 bytes.
  t.is(await knowledgeVectorStore(deps), 'bytes');
  await fusedSearchFindsTheMeaning(t, deps, peer);
  const unembedded = await t.context.t.db.pool.oneFirst(sql.type(count)`
    SELECT count(*)::int AS n FROM knowledge_chunks WHERE agent_id = ${scope.agentId} AND embedding IS NULL`);
  t.is(unembedded, 0);

  // One row per embedding call: the documents' as document_indexing, the question's as rag_query_embedding.
  const usage = await t.context.t.db.pool.any(sql.type(z.strictObject({ action: z.string(), tokens: z.number(), cost: z.number() }))`
    SELECT action_type::text AS action, input_tokens::int AS tokens, cost_usd::float8 AS cost
    FROM usage_events WHERE model_id = 'test/concepts' AND agent_id = ${scope.agentId} ORDER BY created_at, id`);
  t.true(usage.filter((row) => row.action === 'document_indexing').length >= 4);
  t.is(usage.filter((row) => row.action === 'rag_query_embedding').length, 1);
  t.is(usage.length, peer.requests.length);
  t.true(usage.every((row) => row.tokens > 0 && Math.abs(row.cost - (row.tokens * 0.02) / 1e6) < 1e-12));

  // The same question asked by the tool in an evaluation run: its embedding's row carries the run's flag.
  const searched = await searchKnowledgeBaseTool({
    deps,
    scope: { ...scope, usageMetadata: { evaluation: true } },
    input: { query: 'When will my parcel arrive in the US?' },
    signal: new AbortController().signal,
  });
  t.is(searched.passages[0]!.heading, 'Shipping > Delivery times');
  const flags = await t.context.t.db.pool.anyFirst(sql.type(z.strictObject({ evaluation: z.string().nullable() }))`
    SELECT metadata->>'evaluation' AS evaluation FROM usage_events
    WHERE model_id = 'test/concepts' AND action_type = 'rag_query_embedding' AND agent_id = ${scope.agentId} ORDER BY created_at, id`);
  t.deepEqual(flags, [null, 'true']);
});

test('on the embedded default (PGlite with pgvector), vectors are stored as pgvector vectors and the fused search finds the meaning, HNSW-indexed dimension or not', async (t) => {
  t.timeout(240_000, 'PGlite migrates in WebAssembly: slow on a busy machine');
  const database = await openDatabase({ databaseUrl: undefined, dataDir: mkdtempSync(join(tmpdir(), 'knowledge-pgvector-')) });
  t.teardown(() => database.close());
  await seedDemo(database.pool);
  await priceEmbeddingModel(database.pool);
  // 256 dimensions have an HNSW index (sql/migrations/1040_knowledge_vectors.sql); 5 have none.
  for (const dimensions of [256, 5]) {
    await database.pool.query(sql.unsafe`DELETE FROM knowledge_documents WHERE agent_id = ${scope.agentId}`);
    const peer = await startEmbeddingPeer({ dimensions });
    const deps = createApp({ db: database.pool, config: embeddingConfig(peer), logger: pino({ level: 'silent' }) }).deps;
    t.is(await knowledgeVectorStore(deps), 'pgvector');
    await fusedSearchFindsTheMeaning(t, deps, peer);
    await peer.close();
    const stored = await database.pool.one(sql.type(z.strictObject({ vectors: z.number(), bytes: z.number(), dims: z.number() }))`
      SELECT count(embedding_vector)::int AS vectors, count(embedding)::int AS bytes, max(vector_dims(embedding_vector))::int AS dims
      FROM knowledge_chunks WHERE agent_id = ${scope.agentId}`);
    t.like(stored, { bytes: 0, dims: dimensions });
    t.true(stored.vectors > 4);
  }
});
