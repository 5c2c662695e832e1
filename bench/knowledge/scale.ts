/**
 * The `scale` mode of bench:knowledge: one agent holding BENCH_SCALE_CHUNKS passages (default
 * 300,000), loaded straight into the tables (the corpus of corpus.ts, 100 articles to a document,
 * chunked by the service's chunker and stored by `insertDocument`: the upload route would take
 * hours), then the search a chat turn's `search_knowledge_base` runs (`searchKnowledge`, full
 * text) with a 7-word `or` query at c=8, while another organization's owner reads a
 * database-backed route (`GET /api/ai/agents/:agentId/documents` of its own agent) back to back
 * over HTTP. Also: that GET alone, the same seven words as a plain question (the relaxation), and
 * PostgreSQL's own time for the unbounded ranking the search ran before its candidate bound
 * (every match of the `or` query ranked).
 */
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import type { App } from '../../app/app.ts';
import { chunkText } from '../../app/knowledge/chunking.ts';
import { footprintOf } from '../../app/knowledge/limits.ts';
import { searchKnowledge } from '../../app/knowledge/service.ts';
import { insertDocument } from '../../sql/knowledge.ts';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { accessToken } from '../../test/analytics/support.ts';
import { document, VOCABULARY } from './corpus.ts';

const CHUNKS = Number(process.env.BENCH_SCALE_CHUNKS ?? 300_000);
const SEARCHES = Number(process.env.BENCH_SCALE_SEARCHES ?? 400);
const UNBOUNDED_SAMPLES = Number(process.env.BENCH_SCALE_UNBOUNDED ?? 5);
const ARTICLES_PER_DOCUMENT = 100;
const CONCURRENCY = 8;

/**
 * Seven content words joined by `or` (websearch syntax): the corpus's words of frequency rank
 * 100-106 (question() draws from rank 100 on), each in about a sixth of the passages, together
 * in most of them: the shape of the review's query, a question that matches nearly everything.
 */
export const OR_QUERY = VOCABULARY.slice(100, 107).join(' or ');
const PLAIN_QUERY = VOCABULARY.slice(100, 107).join(' ');

type Row = Record<'measure' | 'value', string>;
const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ');

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};
const fmt = (values: number[]) => `${percentile(values, 50).toFixed(1)} / ${percentile(values, 99).toFixed(1)}`;

/** Stores articles as documents of ARTICLES_PER_DOCUMENT each in the agent until it holds `target` passages. */
async function fill(pool: DatabasePool, agentId: string, target: number, log: (line: string) => void) {
  let chunks = 0;
  let article = 0;
  for (let index = 0; chunks < target; index++) {
    const texts: string[] = [];
    for (let i = 0; i < ARTICLES_PER_DOCUMENT; i++) texts.push(document(article++).text);
    const pieces = chunkText(texts.join('\n\n')).slice(0, target - chunks);
    await pool.transaction((tx) =>
      insertDocument(
        tx,
        {
          id: crypto.randomUUID(),
          organizationId: ORGANIZATIONS.demoAgency.id,
          agentId,
          name: `articles-${index}.md`,
          contentType: 'text/markdown',
          bytes: texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0),
          textBytes: footprintOf(pieces).textBytes,
          createdAt: new Date(),
        },
        pieces,
        'bytes',
      ),
    );
    chunks += pieces.length;
    if (index % 20 === 19) log(`  scale: ${chunks} passages stored (load ${load()})`);
  }
  return chunks;
}

/** Runs `one` `count` times over `concurrency` workers; the times of those that succeed, and the failures' names. */
async function timedRuns(count: number, concurrency: number, one: () => Promise<unknown>) {
  const times: number[] = [];
  const failures: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) {
        const at = performance.now();
        try {
          await one();
          times.push(performance.now() - at);
        } catch (error) {
          failures.push(error instanceof Error ? error.name : String(error));
        }
      }
    }),
  );
  return { times, failures };
}

export async function scaleRows(app: App, pool: DatabasePool, log: (line: string) => void): Promise<Row[]> {
  const rows: Row[] = [];
  const agentId = AGENTS.support.id;
  await pool.query(sql.unsafe`DELETE FROM knowledge_documents WHERE agent_id = ${agentId}`);
  log(`scale: loading ${CHUNKS} passages into one agent (load ${load()})`);
  const loading = performance.now();
  const stored = await fill(pool, agentId, CHUNKS, log);
  await pool.query(sql.unsafe`VACUUM ANALYZE knowledge_chunks`);
  await pool.query(sql.unsafe`VACUUM ANALYZE knowledge_documents`);
  const matching = await pool.oneFirst(sql.type(z.strictObject({ n: z.number() }))`
    SELECT count(*)::int AS n FROM knowledge_chunks WHERE agent_id = ${agentId} AND search @@ websearch_to_tsquery('english', ${OR_QUERY})`);
  rows.push({
    measure: `scale: direct load of ${stored} passages into one agent (insertDocument, 500 a statement)`,
    value: `${((performance.now() - loading) / 1000).toFixed(0)} s; the or query matches ${matching} (load ${load()})`,
  });

  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/ai/agents/${AGENTS.otherHelper.id}/documents`;
  const headers = { authorization: `Bearer ${accessToken(USERS.otherOwner.id, ORGANIZATIONS.otherAgency.id)}` };
  const get = async () => {
    const response = await fetch(url, { headers });
    if (response.status !== 200) throw new Error(`GET ${response.status}`);
    await response.arrayBuffer();
  };
  const scope = { organizationId: ORGANIZATIONS.demoAgency.id, agentId, userId: USERS.owner.id };
  const search = () => searchKnowledge(app.deps, scope, OR_QUERY, 5);

  for (let i = 0; i < 20; i++) await Promise.all([get(), search()]);
  const alone = await timedRuns(300, 1, get);
  rows.push({
    measure: "another organization's GET .../documents alone, c=1, 300 requests, p50 / p99 ms",
    value: `${fmt(alone.times)} (load ${load()})`,
  });

  const searchAlone = await timedRuns(Math.min(SEARCHES, 100), 1, search);
  rows.push({
    measure: `search_knowledge_base, 7-word or query, ${stored} passages in one agent, c=1, ${searchAlone.times.length} searches, p50 / p99 ms`,
    value: `${fmt(searchAlone.times)}${searchAlone.failures.length ? `; ${searchAlone.failures.length} failed` : ''} (load ${load()})`,
  });

  let searching = true;
  const during: number[] = [];
  const getter = (async () => {
    while (searching) {
      const at = performance.now();
      await get();
      during.push(performance.now() - at);
    }
  })();
  const loaded = await timedRuns(SEARCHES, CONCURRENCY, search);
  searching = false;
  await getter;
  const failed = loaded.failures.length ? `; ${loaded.failures.length} failed (${[...new Set(loaded.failures)].join(', ')})` : '';
  rows.push({
    measure: `search_knowledge_base, 7-word or query, ${stored} passages in one agent, c=${CONCURRENCY}, ${SEARCHES} searches, p50 / p99 ms`,
    value: `${fmt(loaded.times)}${failed} (load ${load()})`,
  });
  rows.push({
    measure: `another organization's GET .../documents during those searches, c=1, ${during.length} requests, p50 / p99 ms`,
    value: `${fmt(during)} (load ${load()})`,
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));

  // The same seven words as a plain question: the relaxation's steps instead of one `or` step.
  const plain = await timedRuns(SEARCHES, CONCURRENCY, () => searchKnowledge(app.deps, scope, PLAIN_QUERY, 5));
  rows.push({
    measure: `search_knowledge_base, the same 7 words as a plain question, c=${CONCURRENCY}, ${SEARCHES} searches, p50 / p99 ms`,
    value: `${fmt(plain.times)}${plain.failures.length ? `; ${plain.failures.length} failed` : ''} (load ${load()})`,
  });

  // What the search did before its candidate bound: every match of the `or` query ranked.
  const unbounded: number[] = [];
  for (let i = 0; i < UNBOUNDED_SAMPLES; i++) {
    const plan = await pool.oneFirst(sql.type(z.strictObject({ 'QUERY PLAN': z.unknown() }))`
      EXPLAIN (ANALYZE, FORMAT JSON)
      SELECT c.document_id, c.ordinal, ts_rank_cd(c.search, q, 32) AS score
      FROM knowledge_chunks c, websearch_to_tsquery('english', ${OR_QUERY}) AS q
      WHERE c.agent_id = ${agentId} AND c.search @@ q ORDER BY score DESC LIMIT 5`);
    const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as [{ 'Execution Time': number }];
    unbounded.push(parsed[0]['Execution Time']);
  }
  rows.push({
    measure: `PostgreSQL alone: the same or query with every match ranked (no candidate bound), c=1, ${unbounded.length} runs, p50 / p99 ms`,
    value: `${fmt(unbounded)} (load ${load()})`,
  });
  return rows;
}
