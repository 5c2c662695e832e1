/**
 * Knowledge base benchmark (issue 41). One agent of one organization gets BENCH_DOCS synthetic
 * documents (bench/knowledge/corpus.ts, about 10 chunks each) through
 * `POST /api/ai/agents/:agentId/documents` at 4 concurrent uploads (upload MB/s), then
 * BENCH_QUERIES questions are searched as `search_knowledge_base` searches (`searchKnowledge`) at
 * c = 1 and c = 8 (p50/p99), beside PostgreSQL's own execution time (EXPLAIN ANALYZE) of the plain
 * full-text query on the same data: `search @@ websearch_to_tsquery(...)` ranked by `ts_rank_cd`,
 * and of the question's words OR-ed with every match ranked (what the service's bounded
 * relaxation avoids). Twice: full-text only, and with embeddings from a scripted
 * endpoint (bench/knowledge/embedder.ts, BENCH_EMBEDDING_DIMENSIONS, default 256), where the
 * vector ranking is an exact scan of the agent's chunks.
 *
 *   npm run bench:knowledge                          # 10,000 documents (~100,000 chunks): long
 *   BENCH_DOCS=1000 BENCH_QUERIES=200 npm run bench:knowledge
 *   BENCH_MODES=fts npm run bench:knowledge          # only the full-text run
 */
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { sql } from 'slonik';
import { z } from 'zod';
import { createApp } from '../../app/app.ts';
import { searchKnowledge } from '../../app/knowledge/service.ts';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { accessToken } from '../../test/analytics/support.ts';
import { testConfig } from '../../test/helpers/config.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { document, generator, question } from './corpus.ts';
import { DIMENSIONS, startEmbedder } from './embedder.ts';

const DOCS = Number(process.env.BENCH_DOCS ?? 10_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 500);
const MODES = (process.env.BENCH_MODES ?? 'fts,embeddings').split(',');
const UPLOAD_CONCURRENCY = 4;
const log = (line: string) => process.stderr.write(`${line}\n`);

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
  const started = performance.now();
  await run();
  return performance.now() - started;
};

type Row = Record<string, string>;

async function runMode(mode: string): Promise<Row[]> {
  const db = await createTestDatabase();
  await seedDemo(db.pool);
  const embedder = mode === 'embeddings' ? await startEmbedder() : undefined;
  const base = testConfig({ nodeEnv: 'production' });
  const config = embedder
    ? {
        ...base,
        ai: { ...base.ai, gatewayUrl: embedder.url, gatewayApiKey: 'sk-bench' },
        tools: { ...base.tools, embeddingModel: 'bench/hash' },
      }
    : base;
  const app = createApp({ db: db.pool, config, logger: pino({ level: 'warn' }), rateLimits: false });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/ai/agents/${AGENTS.support.id}/documents`;
  const headers = {
    authorization: `Bearer ${accessToken(USERS.owner.id, ORGANIZATIONS.demoAgency.id)}`,
    'content-type': 'application/json',
  };
  let bytes = 0;
  const uploadStarted = performance.now();
  await concurrently(DOCS, UPLOAD_CONCURRENCY, async (i) => {
    const doc = document(i);
    bytes += Buffer.byteLength(doc.text);
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(doc) });
    if (response.status !== 201) throw new Error(`upload ${i}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
    if ((i + 1) % 1000 === 0) log(`  ${mode}: ${i + 1} documents`);
  });
  const uploadSeconds = (performance.now() - uploadStarted) / 1000;
  const chunks = await db.pool.oneFirst(sql.type(z.strictObject({ n: z.number() }))`SELECT count(*)::int AS n FROM knowledge_chunks`);
  await db.pool.query(sql.unsafe`ANALYZE knowledge_chunks`);
  const scope = { organizationId: ORGANIZATIONS.demoAgency.id, agentId: AGENTS.support.id, userId: USERS.owner.id };
  const random = generator(42);
  const questions = Array.from({ length: QUERIES }, () => question(random));
  // Warm-up: caches and plans.
  for (const q of questions.slice(0, 20)) await searchKnowledge(app.deps, scope, q, 5);
  const service = async (concurrency: number) =>
    concurrently(QUERIES, concurrency, (i) => timed(() => searchKnowledge(app.deps, scope, questions[i]!, 5)));
  const c1 = await service(1);
  const c8 = await service(8);
  const explain = async (statement: ReturnType<typeof sql.unsafe>) => {
    const row = await db.pool.one(sql.unsafe`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`);
    const plan = Object.values(row as Record<string, unknown>)[0];
    return (typeof plan === 'string' ? (JSON.parse(plan) as [{ 'Execution Time': number }]) : (plan as [{ 'Execution Time': number }]))[0][
      'Execution Time'
    ];
  };
  const plain: number[] = [];
  const own: number[] = [];
  for (const q of questions) {
    plain.push(
      await explain(sql.unsafe`SELECT document_id, ordinal FROM knowledge_chunks, websearch_to_tsquery('english', ${q}) AS query
        WHERE agent_id = ${scope.agentId} AND search @@ query ORDER BY ts_rank_cd(search, query) DESC LIMIT 5`),
    );
    own.push(
      await explain(sql.unsafe`
        WITH strict AS (SELECT websearch_to_tsquery('english', ${q}) AS q),
        terms AS (SELECT q AS strict, CASE WHEN strpos(q::text, '!') > 0 THEN q ELSE replace(q::text, ' & ', ' | ')::tsquery END AS loose FROM strict WHERE numnode(q) > 0)
        SELECT c.document_id, c.ordinal, (ts_rank_cd(c.search, terms.loose, 32) + CASE WHEN c.search @@ terms.strict THEN 1 ELSE 0 END) AS score
        FROM terms, knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id
        WHERE c.agent_id = ${scope.agentId} AND c.search @@ terms.loose ORDER BY score DESC LIMIT 5`),
    );
  }
  server.close();
  await embedder?.close();
  await db.drop();
  const mb = bytes / 1024 / 1024;
  const fmt = (values: number[]) => `${percentile(values, 50).toFixed(1)} / ${percentile(values, 99).toFixed(1)}`;
  const label = mode === 'embeddings' ? `embeddings (${DIMENSIONS} dims, exact scan) + FTS, RRF` : 'full-text only';
  return [
    {
      run: label,
      measure: `upload, ${DOCS} docs, ${mb.toFixed(1)} MiB, ${chunks} chunks, c=${UPLOAD_CONCURRENCY}`,
      value: `${(mb / uploadSeconds).toFixed(2)} MiB/s (${uploadSeconds.toFixed(1)} s)`,
    },
    { run: label, measure: 'search_knowledge_base, c=1, p50 / p99 ms', value: fmt(c1) },
    { run: label, measure: 'search_knowledge_base, c=8, p50 / p99 ms', value: fmt(c8) },
    { run: label, measure: 'PostgreSQL alone: plain FTS (AND, ts_rank_cd, LIMIT 5), p50 / p99 ms', value: fmt(plain) },
    {
      run: label,
      measure: 'PostgreSQL alone: words OR-ed, every match ranked (the unbounded relaxation), p50 / p99 ms',
      value: fmt(own),
    },
  ];
}

async function main() {
  log(`bench:knowledge: ${DOCS} documents, ${QUERIES} questions, modes ${MODES.join(', ')}`);
  const rows: Row[] = [];
  for (const mode of MODES) rows.push(...(await runMode(mode)));
  console.log('| run | measure | value |\n|---|---|---|');
  for (const row of rows) console.log(`| ${row.run} | ${row.measure} | ${row.value} |`);
}

await main();
