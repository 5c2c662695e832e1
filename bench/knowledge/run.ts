/**
 * Knowledge base benchmark (issue 41). One agent of one organization gets BENCH_DOCS synthetic
 * documents (bench/knowledge/corpus.ts, about 10 chunks each) through
 * `POST /api/ai/agents/:agentId/documents` at 4 concurrent uploads (upload MB/s), once: with
 * embeddings from a scripted endpoint (bench/knowledge/embedder.ts, BENCH_EMBEDDING_DIMENSIONS,
 * default 256) when the `embeddings` mode is asked for, so both modes search the same data. The
 * upload rate without embeddings is measured on the first BENCH_FTS_UPLOAD_DOCS documents
 * (default 1,000) uploaded to a second agent and deleted again. Then questions are searched as
 * `search_knowledge_base` searches (`searchKnowledge`) at c = 1 and c = 8 (p50/p99): full-text
 * only (BENCH_QUERIES, default 500) and fused with the vector ranking (BENCH_EMBEDDING_QUERIES,
 * default 20: each reads every embedding of the agent when the exact scan runs, seconds at 100,000 chunks), beside
 * PostgreSQL's own execution time (EXPLAIN ANALYZE, BENCH_EXPLAIN questions, default 100) of the
 * plain full-text query on the same data: `search @@ websearch_to_tsquery(...)` ranked by
 * `ts_rank_cd`, and of the question's words OR-ed with every match ranked (what the service's
 * bounded relaxation avoids).
 *
 *   npm run bench:knowledge                          # 10,000 documents (~100,000 chunks): ~15 min
 *   BENCH_DOCS=1000 BENCH_QUERIES=200 npm run bench:knowledge
 *   BENCH_MODES=fts npm run bench:knowledge          # only the full-text run (no embeddings uploaded)
 *   BENCH_MODES=scale npm run bench:knowledge        # 300,000 passages in one agent, loaded in SQL: scale.ts
 */
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { createApp, type App } from '../../app/app.ts';
import { knowledgeVectorStore, searchKnowledge } from '../../app/knowledge/service.ts';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { accessToken } from '../../test/analytics/support.ts';
import { testConfig } from '../../test/helpers/config.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { document, generator, question } from './corpus.ts';
import { DIMENSIONS, startEmbedder } from './embedder.ts';
import { scaleRows } from './scale.ts';

const DOCS = Number(process.env.BENCH_DOCS ?? 10_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 500);
const EMBEDDING_QUERIES = Number(process.env.BENCH_EMBEDDING_QUERIES ?? 20);
const EXPLAINED = Number(process.env.BENCH_EXPLAIN ?? 100);
const FTS_UPLOAD_DOCS = Math.min(DOCS, Number(process.env.BENCH_FTS_UPLOAD_DOCS ?? 1_000));
const MODES = (process.env.BENCH_MODES ?? 'fts,embeddings').split(',');
const UPLOAD_CONCURRENCY = 4;
const started = performance.now();
const log = (line: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0)} s] ${line}\n`);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};

async function concurrently<T>(count: number, concurrency: number, one: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await one(i);
      }
    }),
  );
  return results;
}

const timed = async (run: () => Promise<unknown>) => {
  const at = performance.now();
  await run();
  return performance.now() - at;
};

type Row = Record<string, string>;
const fmt = (values: number[]) => `${percentile(values, 50).toFixed(1)} / ${percentile(values, 99).toFixed(1)}`;

/** Serves `app` on loopback while documents 0..`count` - 1 are uploaded to `agentId`: MiB and seconds. */
async function upload(app: App, agentId: string, count: number, label: string) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/ai/agents/${agentId}/documents`;
  const headers = {
    authorization: `Bearer ${accessToken(USERS.owner.id, ORGANIZATIONS.demoAgency.id)}`,
    'content-type': 'application/json',
  };
  let bytes = 0;
  const at = performance.now();
  await concurrently(count, UPLOAD_CONCURRENCY, async (i) => {
    const doc = document(i);
    bytes += Buffer.byteLength(doc.text);
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(doc) });
    if (response.status !== 201) throw new Error(`upload ${i}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
    if ((i + 1) % 1000 === 0) log(`  ${label}: ${i + 1} documents`);
  });
  const seconds = (performance.now() - at) / 1000;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return { mib: bytes / 1024 / 1024, seconds };
}

async function main() {
  log(`bench:knowledge: ${DOCS} documents, ${QUERIES} questions (${EMBEDDING_QUERIES} with embeddings), modes ${MODES.join(', ')}`);
  const db = await createTestDatabase();
  await seedDemo(db.pool);
  const embedder = MODES.includes('embeddings') ? await startEmbedder() : undefined;
  // On the platform key an unpriced embedding model is never called: the scripted one gets a price.
  await db.pool.query(sql.unsafe`
    INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
    VALUES ('bench/hash', 0.02, 0, 0) ON CONFLICT (model_id) DO NOTHING`);
  const defaults = testConfig({ nodeEnv: 'production' });
  // The corpus passes the default per-agent limits (100,000 passages): they are raised, the search's bounds are not.
  const unlimited = { maxDocumentsPerAgent: 1e7, maxChunksPerAgent: 1e8, maxChunksPerOrganization: 1e9 };
  const base = {
    ...defaults,
    knowledge: { ...defaults.knowledge, ...unlimited, maxTextBytesPerAgent: 2 ** 40, maxTextBytesPerOrganization: 2 ** 40 },
  };
  const plain = createApp({ db: db.pool, config: base, logger: pino({ level: 'warn' }), rateLimits: false });
  const fused = embedder
    ? createApp({
        db: db.pool,
        config: {
          ...base,
          // The exact scan of 100,000 chunks holds this process's event loop for seconds at c=8,
          // while the scripted embedder in the same process waits to answer.
          ai: { ...base.ai, gatewayUrl: embedder.url, gatewayApiKey: 'sk-bench', providerTimeoutMs: 600_000 },
          tools: { ...base.tools, embeddingModel: 'bench/hash' },
        },
        logger: pino({ level: 'warn' }),
        rateLimits: false,
      })
    : undefined;
  // Each row is also logged as measured: a run that fails later keeps what it measured.
  const rows: Row[] = [];
  const record = (row: Row) => {
    log(`| ${row.measure} | ${row.value} |`);
    rows.push(row);
  };

  if (MODES.includes('scale')) for (const row of await scaleRows(plain, db.pool, log)) record(row);
  if (MODES.includes('fts') || MODES.includes('embeddings')) await corpusRuns(db.pool, plain, fused, record);
  await embedder?.close();
  await db.drop();
  console.log('| measure | value |\n|---|---:|');
  for (const row of rows) console.log(`| ${row.measure} | ${row.value} |`);
  log('done');
}

/** The modes `fts` and `embeddings`: the corpus uploaded through the route, then searched. */
async function corpusRuns(pool: DatabasePool, plain: App, fused: App | undefined, record: (row: Row) => void) {
  const db = { pool };
  // The upload rate without embeddings, on a second agent whose documents are deleted again.
  const small = await upload(plain, AGENTS.research.id, FTS_UPLOAD_DOCS, 'upload without embeddings');
  await db.pool.query(sql.unsafe`DELETE FROM knowledge_documents WHERE agent_id = ${AGENTS.research.id}`);
  record({
    measure: `upload without embeddings, ${FTS_UPLOAD_DOCS} docs, ${small.mib.toFixed(1)} MiB, c=${UPLOAD_CONCURRENCY}`,
    value: `${(small.mib / small.seconds).toFixed(2)} MiB/s (${small.seconds.toFixed(1)} s)`,
  });

  const full = await upload(fused ?? plain, AGENTS.support.id, DOCS, 'upload');
  const chunks = await db.pool.oneFirst(sql.type(z.strictObject({ n: z.number() }))`SELECT count(*)::int AS n FROM knowledge_chunks`);
  await db.pool.query(sql.unsafe`VACUUM ANALYZE knowledge_chunks`);
  record({
    measure: `upload ${fused ? `with embeddings (${DIMENSIONS} dims)` : 'without embeddings'}, ${DOCS} docs, ${full.mib.toFixed(1)} MiB, ${chunks} chunks, c=${UPLOAD_CONCURRENCY}`,
    value: `${(full.mib / full.seconds).toFixed(2)} MiB/s (${full.seconds.toFixed(1)} s)`,
  });
  log(`uploaded ${chunks} chunks`);

  const scope = { organizationId: ORGANIZATIONS.demoAgency.id, agentId: AGENTS.support.id, userId: USERS.owner.id };
  const random = generator(42);
  const questions = Array.from({ length: QUERIES }, () => question(random));
  const searches = async (app: App, label: string, count: number) => {
    // Warm-up: caches and plans.
    for (const q of questions.slice(0, Math.ceil(count / 10))) await searchKnowledge(app.deps, scope, q, 5);
    for (const concurrency of [1, 8]) {
      // A search that fails (the pool's 60 s statement timeout) is counted, not timed.
      const failures: string[] = [];
      const times = await concurrently(count, concurrency, (i) =>
        timed(() => searchKnowledge(app.deps, scope, questions[i]!, 5)).catch((error: unknown) => {
          failures.push(error instanceof Error ? error.constructor.name : String(error));
          return NaN;
        }),
      );
      const failed = failures.length ? `; ${failures.length} failed (${[...new Set(failures)].join(', ')})` : '';
      record({
        measure: `search_knowledge_base, ${label}, c=${concurrency}, ${count} questions, p50 / p99 ms`,
        value: `${fmt(times.filter((time) => !Number.isNaN(time)))}${failed}`,
      });
      log(`searched: ${label}, c=${concurrency}`);
    }
  };
  if (MODES.includes('fts')) await searches(plain, 'full-text only', QUERIES);
  // Without pgvector, past KNOWLEDGE_EXACT_SCAN_MAX_CHUNKS embedded passages the vector ranking is skipped.
  const vectors = `${(await knowledgeVectorStore(fused?.deps ?? plain.deps)) === 'pgvector' ? 'HNSW' : 'exact scan'}, up to ${plain.deps.config.knowledge.exactScanMaxChunks} passages without pgvector`;
  if (fused) await searches(fused, `embeddings (${vectors}) + FTS, RRF`, Math.min(QUERIES, EMBEDDING_QUERIES));

  const explain = async (statement: ReturnType<typeof sql.unsafe>) => {
    const row = await db.pool.one(sql.unsafe`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`);
    const plan = Object.values(row as Record<string, unknown>)[0];
    return (typeof plan === 'string' ? (JSON.parse(plan) as [{ 'Execution Time': number }]) : (plan as [{ 'Execution Time': number }]))[0][
      'Execution Time'
    ];
  };
  const and: number[] = [];
  const or: number[] = [];
  for (const q of questions.slice(0, EXPLAINED)) {
    and.push(
      await explain(sql.unsafe`SELECT document_id, ordinal FROM knowledge_chunks, websearch_to_tsquery('english', ${q}) AS query
        WHERE agent_id = ${scope.agentId} AND search @@ query ORDER BY ts_rank_cd(search, query) DESC LIMIT 5`),
    );
    or.push(
      await explain(sql.unsafe`
        WITH strict AS (SELECT websearch_to_tsquery('english', ${q}) AS q),
        terms AS (SELECT q AS strict, CASE WHEN strpos(q::text, '!') > 0 THEN q ELSE replace(q::text, ' & ', ' | ')::tsquery END AS loose FROM strict WHERE numnode(q) > 0)
        SELECT c.document_id, c.ordinal, (ts_rank_cd(c.search, terms.loose, 32) + CASE WHEN c.search @@ terms.strict THEN 1 ELSE 0 END) AS score
        FROM terms, knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id
        WHERE c.agent_id = ${scope.agentId} AND c.search @@ terms.loose ORDER BY score DESC LIMIT 5`),
    );
  }
  record({ measure: `PostgreSQL alone: plain FTS (AND, ts_rank_cd, LIMIT 5), ${and.length} questions, p50 / p99 ms`, value: fmt(and) });
  record({
    measure: `PostgreSQL alone: words OR-ed, every match ranked (the unbounded relaxation), ${or.length} questions, p50 / p99 ms`,
    value: fmt(or),
  });
}

await main();
