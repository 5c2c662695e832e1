/**
 * `npm run bench:knowledge:vectors`: where the exact scan of embeddings stops being fast, beside
 * pgvector's HNSW index (issue 41). One agent's chunks grow through BENCH_VECTOR_SIZES (default
 * 1,000, 5,000, 20,000, 100,000) random unit vectors of 256 dimensions on PostgreSQL, and through
 * BENCH_VECTOR_PGLITE_SIZES (default 1,000, 5,000, 20,000: PGlite's WebAssembly builds the index
 * too slowly for more in a bench) on PGlite; at each size BENCH_VECTOR_QUERIES (default 20) random
 * questions ask for the 20 nearest (the depth of a fused search of 5 passages), timed as the
 * service runs them:
 *
 * - PostgreSQL without pgvector (the server of TEST_DATABASE_URL): the service's exact scan
 *   (`scanEmbeddings`: every float32 embedding of the agent read and scored in this process);
 * - the embedded PGlite with pgvector: `nearestChunks` (the HNSW index), and the same query with
 *   index scans disabled (pgvector's exact distance in SQL), with the index's recall of the exact
 *   20 nearest. The chunks are inserted without the 256-dimension index, which is then built
 *   (CREATE INDEX, timed), and the last 100 are inserted into the index as an upload does (timed
 *   per chunk).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { openDatabase } from '../../app/db/open.ts';
import { scanEmbeddings } from '../../app/knowledge/service.ts';
import { nearestChunks } from '../../sql/knowledge-search.ts';
import { AGENTS, ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { generator } from './corpus.ts';

const SIZES = (process.env.BENCH_VECTOR_SIZES ?? '1000,5000,20000,100000').split(',').map(Number);
const PGLITE_SIZES = (process.env.BENCH_VECTOR_PGLITE_SIZES ?? '1000,5000,20000').split(',').map(Number);
const QUERIES = Number(process.env.BENCH_VECTOR_QUERIES ?? 20);
const DIMENSIONS = 256;
const DEPTH = 20;
/** The statement timeout of the timed rankings: generous, this bench measures them unbounded. */
const TIMEOUT_MS = 60_000;
const DOCUMENT = '00000000-0000-4000-8000-00000000c0de';
const agentId = AGENTS.support.id;
const started = performance.now();
const log = (line: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0)} s] ${line}\n`);

const random = generator(7);
const unitVector = () => {
  const vector = Array.from({ length: DIMENSIONS }, () => random() - 0.5);
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  return vector.map((x) => x / norm);
};
const questions = Array.from({ length: QUERIES }, unitVector);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};
const fmt = (values: number[]) => `${percentile(values, 50).toFixed(1)} / ${percentile(values, 99).toFixed(1)}`;

async function timedAll<T>(run: (query: number[]) => Promise<T>) {
  await run(questions[0]!);
  const times: number[] = [];
  const answers: T[] = [];
  for (const query of questions) {
    const at = performance.now();
    answers.push(await run(query));
    times.push(performance.now() - at);
  }
  return { times, answers };
}

/** Adds chunks `from`..`to` - 1 with random unit vectors, as pgvector vectors or float32 bytes. */
async function grow(db: DatabasePool, from: number, to: number, store: 'pgvector' | 'bytes') {
  for (let at = from; at < to; at += 1000) {
    const ordinals = Array.from({ length: Math.min(1000, to - at) }, (_, i) => at + i);
    const vectors = ordinals.map(unitVector);
    const ordinalArray = sql.array(ordinals, 'int4');
    await db.query(
      store === 'pgvector'
        ? sql.unsafe`INSERT INTO knowledge_chunks (document_id, agent_id, ordinal, heading, body, embedding_vector)
            SELECT ${DOCUMENT}, ${agentId}, c.ordinal, '', 'x', c.v::vector
            FROM unnest(${ordinalArray}::int[], ${sql.array(
              vectors.map((v) => `[${v.join(',')}]`),
              'text',
            )}::text[]) AS c(ordinal, v)`
        : sql.unsafe`INSERT INTO knowledge_chunks (document_id, agent_id, ordinal, heading, body, embedding)
            SELECT ${DOCUMENT}, ${agentId}, c.ordinal, '', 'x', decode(c.v, 'hex')
            FROM unnest(${ordinalArray}::int[], ${sql.array(
              vectors.map((v) => Buffer.from(Float32Array.from(v).buffer).toString('hex')),
              'text',
            )}::text[]) AS c(ordinal, v)`,
    );
  }
  await db.query(sql.unsafe`ANALYZE knowledge_chunks`);
}

async function prepare(db: DatabasePool) {
  await seedDemo(db);
  await db.query(sql.unsafe`INSERT INTO knowledge_documents (id, organization_id, agent_id, name, content_type, bytes, chunk_count, text_bytes, created_at)
    VALUES (${DOCUMENT}, ${ORGANIZATIONS.demoAgency.id}, ${agentId}, 'vectors', 'text/plain', 1, 1, 0, now())`);
}

const Key = z.strictObject({ documentId: z.string(), ordinal: z.number(), score: z.number() });

/** The query of nearestChunks with index scans off: pgvector's exact distance over the agent's chunks. */
const exactInSql = (db: DatabasePool, query: number[]) =>
  db.transaction(async (tx) => {
    await tx.query(sql.unsafe`SET LOCAL enable_indexscan = off`);
    return tx.any(sql.type(Key)`
      SELECT document_id AS "documentId", ordinal, (1 - (embedding_vector::vector(256) <=> ${`[${query.join(',')}]`}::vector(256)))::float8 AS score
      FROM knowledge_chunks WHERE agent_id = ${agentId} AND vector_dims(embedding_vector) = 256
      ORDER BY embedding_vector::vector(256) <=> ${`[${query.join(',')}]`}::vector(256) LIMIT ${DEPTH}`);
  });

async function main() {
  const rows: string[] = [];
  const notes: string[] = [];
  log(`sizes ${SIZES.join(', ')}, ${QUERIES} questions, ${DIMENSIONS} dimensions, ${DEPTH} nearest`);

  const postgres = await createTestDatabase();
  await prepare(postgres.pool);
  let size = 0;
  for (const target of SIZES) {
    await grow(postgres.pool, size, target, 'bytes');
    size = target;
    const scan = await timedAll((query) => scanEmbeddings(postgres.pool, agentId, query, DEPTH, TIMEOUT_MS));
    rows.push(`| ${target.toLocaleString('en')} | PostgreSQL 15, exact scan in the service | ${fmt(scan.times)} | exact |`);
    log(`postgres ${target}: ${fmt(scan.times)}`);
  }
  await postgres.drop();

  const embedded = await openDatabase({ databaseUrl: undefined, dataDir: mkdtempSync(join(tmpdir(), 'bench-vectors-')) });
  await prepare(embedded.pool);
  size = 0;
  for (const target of PGLITE_SIZES) {
    await embedded.pool.query(sql.unsafe`DROP INDEX knowledge_chunks_vector_256_idx`);
    await grow(embedded.pool, size, target - 100, 'pgvector');
    const building = performance.now();
    await embedded.pool.query(sql.unsafe`CREATE INDEX knowledge_chunks_vector_256_idx ON knowledge_chunks
      USING hnsw ((embedding_vector::vector(256)) vector_cosine_ops) WHERE vector_dims(embedding_vector) = 256`);
    const built = (performance.now() - building) / 1000;
    const inserting = performance.now();
    await grow(embedded.pool, target - 100, target, 'pgvector');
    const perChunk = (performance.now() - inserting) / 100;
    log(`pglite ${target}: index built in ${built.toFixed(1)} s, then ${perChunk.toFixed(1)} ms a chunk inserted`);
    notes.push(
      `PGlite, ${target.toLocaleString('en')} chunks: HNSW built in ${built.toFixed(1)} s; then ${perChunk.toFixed(1)} ms a chunk inserted into it`,
    );
    size = target;
    const plan = await embedded.pool.anyFirst(sql.type(z.strictObject({ 'QUERY PLAN': z.string() }))`
      EXPLAIN SELECT document_id FROM knowledge_chunks WHERE agent_id = ${agentId} AND vector_dims(embedding_vector) = 256
      ORDER BY embedding_vector::vector(256) <=> ${`[${questions[0]!.join(',')}]`}::vector(256) LIMIT ${DEPTH}`);
    const usesIndex = plan.some((line) => line.includes('knowledge_chunks_vector_256_idx'));
    const indexed = await timedAll((query) => nearestChunks(embedded.pool, agentId, query, DEPTH, TIMEOUT_MS));
    const exact = await timedAll((query) => exactInSql(embedded.pool, query));
    let found = 0;
    indexed.answers.forEach((answer, i) => {
      const truth = new Set(exact.answers[i]!.map((key) => key.ordinal));
      found += answer.filter((key) => truth.has(key.ordinal)).length;
    });
    const recall = found / (QUERIES * DEPTH);
    rows.push(
      `| ${target.toLocaleString('en')} | PGlite + pgvector, HNSW (nearestChunks${usesIndex ? '' : '; planner chose no index'}) | ${fmt(indexed.times)} | ${(recall * 100).toFixed(1)}% |`,
    );
    rows.push(`| ${target.toLocaleString('en')} | PGlite + pgvector, exact distance in SQL | ${fmt(exact.times)} | exact |`);
    log(`pglite ${target}: index ${fmt(indexed.times)} (recall ${recall}), exact ${fmt(exact.times)}`);
  }
  await embedded.close();
  console.log('| chunks of the agent | vector ranking | p50 / p99 ms | recall@20 |\n|---:|---|---:|---:|');
  for (const row of rows) console.log(row);
  for (const note of notes) console.log(`\n${note}`);
}

await main();
