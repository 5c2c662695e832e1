import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { CountRow } from './rows.ts';

/*
 * The knowledge base's search statements (the documents themselves: sql/knowledge.ts). Every
 * statement here runs in a transaction whose `statement_timeout` is the caller's `timeoutMs`
 * (set_config(..., true): transaction-scoped), so one search cannot hold the shared database
 * longer than that; a statement past it fails with slonik's StatementTimeoutError.
 */

const Passage = z.strictObject({
  documentId: z.string(),
  documentName: z.string(),
  ordinal: z.number(),
  heading: z.string(),
  text: z.string(),
  score: z.number(),
});
export type Passage = z.infer<typeof Passage>;

const passageColumns = sql.fragment`
  c.document_id AS "documentId", d.name AS "documentName", c.ordinal, c.heading, c.body AS text`;

/**
 * Runs `run` in a transaction whose statements each stop after `timeoutMs`. Inside a caller's
 * transaction it is a savepoint, and the timeout then lasts until that transaction ends.
 */
export function withStatementTimeout<T>(
  db: CommonQueryMethods,
  timeoutMs: number,
  run: (tx: CommonQueryMethods) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query(sql.unsafe`SELECT set_config('statement_timeout', ${String(Math.max(1, Math.trunc(timeoutMs)))}, true)`);
    return run(tx);
  });
}

/**
 * Passages one step of the full-text search ranks at most: the first this many of the agent's
 * passages matching the step's query (in the order the database finds them), so the ranking
 * (`ts_rank` over each candidate's tsvector, some microseconds each) costs the same at 300
 * matches as at 300,000.
 */
export const SEARCH_CANDIDATES = 300;
/** Most words the relaxation combines (the first step uses all): C(6, 3) = 20 groups at most in one step. */
const MAX_LADDER_WORDS = 6;
/** Most words the last step (any one word) ORs. */
const MAX_ANY_WORDS = 16;
/**
 * A word PostgreSQL's statistics of knowledge_chunks (all agents) put in more passages than this
 * is too common to find passages by in the relaxation: the GIN index walks every passage holding
 * a word of an OR of AND groups, whoever's they are. At 300,000 passages, "any 4 of 7 words" of
 * about 40,000 passages each took 1 s (bench/knowledge).
 */
export const COMMON_WORD_PASSAGES = 2_000;

const QueryShape = z.strictObject({ operators: z.boolean(), words: z.array(z.string()), common: z.array(z.string()) });

/** `words` combined `size` at a time: `('a' & 'b') | ('a' & 'c') | ...` (lexemes as PostgreSQL normalized them). */
function atLeast(words: readonly string[], size: number): string {
  const quote = (word: string) => `'${word.replace(/'/g, "''")}'`;
  const groups: string[] = [];
  const pick = (from: number, chosen: string[]) => {
    if (chosen.length === size) return void groups.push(`(${chosen.map(quote).join(' & ')})`);
    for (let i = from; i < words.length; i++) pick(i + 1, [...chosen, words[i]!]);
  };
  pick(0, []);
  return groups.join(' | ');
}

/**
 * The agent's passages for `query` (English stemming, `websearch_to_tsquery` syntax), best
 * first. A question rarely has every one of its words in the passage that answers it, so the
 * search relaxes step by step until it has `limit` passages: passages holding all n words, then
 * any n-1 of them, ... then any one, each step a GIN query. The relaxation combines the
 * question's words that are not common (COMMON_WORD_PASSAGES, by the table's statistics; at most
 * MAX_LADDER_WORDS of them), and a last step takes passages holding any word, common ones
 * included. Each step ranks at most SEARCH_CANDIDATES passages (ranking every passage that
 * shares a common word is what made an unbounded OR slow: bench/knowledge). A passage's score is
 * the number of words of the step that found it plus its `ts_rank` (normalized to 0..1; heading
 * words weigh more), so more words always rank first. A query with operators (a quoted phrase,
 * `-word`, `or`) is taken as written, without relaxing, and ranked among SEARCH_CANDIDATES
 * likewise. A query of stop words only finds nothing. Every statement stops after `timeoutMs`.
 */
export function searchPassages(
  db: CommonQueryMethods,
  agentId: string,
  query: string,
  limit: number,
  timeoutMs: number,
): Promise<Passage[]> {
  return withStatementTimeout(db, timeoutMs, async (tx) => {
    // most_common_elem_freqs ends with 3 summary numbers; unnest pads the words with nulls there.
    const shape = await tx.one(sql.type(QueryShape)`
      WITH words AS (SELECT DISTINCT word FROM unnest(tsvector_to_array(to_tsvector('english', ${query}))) AS word),
      common AS (
        SELECT e.word FROM pg_stats s,
             unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(word, frequency)
        WHERE s.schemaname = current_schema() AND s.tablename = 'knowledge_chunks' AND s.attname = 'search'
          AND e.frequency * (SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = 'knowledge_chunks'::regclass) > ${COMMON_WORD_PASSAGES}
      )
      SELECT q::text ~ '[!|]|<' AS operators,
             coalesce((SELECT array_agg(word ORDER BY word) FROM words), '{}') AS words,
             coalesce((SELECT array_agg(word ORDER BY word) FROM words WHERE word IN (SELECT word FROM common)), '{}') AS common
      FROM websearch_to_tsquery('english', ${query}) AS q`);
    if (shape.words.length === 0) return [];
    const found = new Map<string, Passage>();
    const step = async (match: ReturnType<typeof sql.fragment>, words: number) => {
      const rows = await tx.any(sql.type(Passage)`
        WITH matching AS (
          SELECT c.document_id, c.ordinal, c.heading, c.body, c.search FROM knowledge_chunks c, (SELECT ${match} AS q) AS m
          WHERE c.agent_id = ${agentId} AND c.search @@ m.q
          LIMIT ${SEARCH_CANDIDATES}
        )
        SELECT c.document_id AS "documentId", d.name AS "documentName", c.ordinal, c.heading, c.body AS text,
               (${words} + ts_rank(c.search, m.q, 32))::float8 AS score
        FROM matching c JOIN knowledge_documents d ON d.id = c.document_id, (SELECT ${match} AS q) AS m
        ORDER BY score DESC, c.document_id, c.ordinal
        LIMIT ${limit + found.size}`);
      for (const row of rows) if (!found.has(`${row.documentId}/${row.ordinal}`)) found.set(`${row.documentId}/${row.ordinal}`, row);
    };
    const all = shape.words.length;
    await step(sql.fragment`websearch_to_tsquery('english', ${query})`, all);
    if (shape.operators) return [...found.values()].slice(0, limit);
    const common = new Set(shape.common);
    const rare = shape.words.filter((word) => !common.has(word));
    const ladder = rare.slice(0, MAX_LADDER_WORDS);
    for (let size = ladder.length === all ? all - 1 : ladder.length; size >= 1 && found.size < limit; size--)
      await step(sql.fragment`${atLeast(ladder, size)}::tsquery`, size);
    if (found.size < limit && ladder.length < all)
      await step(sql.fragment`${atLeast([...rare, ...shape.common].slice(0, MAX_ANY_WORDS), 1)}::tsquery`, 1);
    return [...found.values()].sort((a, b) => b.score - a.score).slice(0, limit);
  });
}

/** HNSW indexes of sql/migrations/1040_knowledge_vectors.sql: the cast each one indexes, by dimension. */
const INDEXED_VECTOR_TYPES = new Map([
  [256, sql.fragment`vector(256)`],
  [384, sql.fragment`vector(384)`],
  [512, sql.fragment`vector(512)`],
  [768, sql.fragment`vector(768)`],
  [1024, sql.fragment`vector(1024)`],
  [1536, sql.fragment`vector(1536)`],
]);

/**
 * Candidates an HNSW search keeps (`hnsw.ef_search`; pgvector's default is 40). On uniformly
 * random 256-dimension vectors (a graph index's worst case) at 5,000 chunks, the index found
 * 59.5% of the exact 20 nearest at 40, 84% at 100, 94.5% at 200 (bench/knowledge/README.md).
 */
const HNSW_EF_SEARCH = 200;

const Nearest = z.strictObject({ documentId: z.string(), ordinal: z.number(), score: z.number() });

/**
 * The agent's `limit` chunks nearest to `query` (a unit vector) by cosine, best first, with their
 * cosine similarity as score, on a `pgvector` store: ordered by the HNSW index of the query's
 * dimension when there is one (approximate; an iterative scan keeps going until `limit` of the
 * agent's chunks are found among all agents'), else by pgvector's exact distance over the
 * agent's chunks of that dimension. Chunks of another dimension (an earlier model) are not ranked.
 */
export function nearestChunks(db: CommonQueryMethods, agentId: string, query: readonly number[], limit: number, timeoutMs: number) {
  const type = INDEXED_VECTOR_TYPES.get(query.length) ?? sql.fragment`vector`;
  const literal = `[${query.join(',')}]`;
  return withStatementTimeout(db, timeoutMs, async (tx) => {
    await tx.query(sql.unsafe`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),
                                     set_config('hnsw.ef_search', ${String(Math.max(HNSW_EF_SEARCH, 2 * limit))}, true)`);
    // relaxed_order may answer slightly out of order: the nearest `limit` are sorted again.
    return tx.any(sql.type(Nearest)`
      WITH nearest AS MATERIALIZED (
        SELECT document_id, ordinal, embedding_vector::${type} <=> ${literal}::${type} AS distance
        FROM knowledge_chunks
        WHERE agent_id = ${agentId} AND vector_dims(embedding_vector) = ${query.length}
        ORDER BY embedding_vector::${type} <=> ${literal}::${type}
        LIMIT ${limit}
      )
      SELECT document_id AS "documentId", ordinal, (1 - distance)::float8 AS score FROM nearest ORDER BY distance, document_id, ordinal`);
  });
}

/**
 * How many of the agent's chunks have an embedding in `embedding` (a `bytes` store), counted up
 * to `cap` + 1 only: the exact scan runs only when this is at most `cap`, and the count must not
 * cost what the scan would.
 */
export function embeddedChunksUpTo(db: CommonQueryMethods, agentId: string, cap: number, timeoutMs: number): Promise<number> {
  return withStatementTimeout(db, timeoutMs, (tx) =>
    tx.oneFirst(sql.type(CountRow)`
      SELECT count(*)::int AS n FROM (
        SELECT 1 FROM knowledge_chunks WHERE agent_id = ${agentId} AND embedding IS NOT NULL LIMIT ${cap + 1}
      ) AS embedded`),
  );
}

const DocumentIdOrdinalEmbeddingRow = z.strictObject({ documentId: z.string(), ordinal: z.number(), embedding: z.instanceof(Buffer) });

/** The embeddings of the agent's chunks (float32 little-endian unit vectors), for the service's exact scan on a `bytes` store. */
export function listEmbeddings(db: CommonQueryMethods, agentId: string, timeoutMs: number) {
  return withStatementTimeout(db, timeoutMs, (tx) =>
    tx.any(sql.type(DocumentIdOrdinalEmbeddingRow)`
      SELECT document_id AS "documentId", ordinal, embedding FROM knowledge_chunks
      WHERE agent_id = ${agentId} AND embedding IS NOT NULL`),
  );
}

/** The agent's passages with these keys, each with the score given (in no particular order). */
export function findPassages(
  db: CommonQueryMethods,
  agentId: string,
  keys: readonly { documentId: string; ordinal: number; score: number }[],
  timeoutMs: number,
) {
  return withStatementTimeout(db, timeoutMs, (tx) =>
    tx.any(sql.type(Passage)`
      SELECT ${passageColumns}, k.score::float8 AS score
      FROM unnest(${sql.array(
        keys.map((key) => key.documentId),
        'uuid',
      )}::uuid[], ${sql.array(
        keys.map((key) => key.ordinal),
        'int4',
      )}::int[], ${sql.array(
        keys.map((key) => key.score),
        'float8',
      )}::float8[]) AS k(document_id, ordinal, score)
      JOIN knowledge_chunks c ON c.document_id = k.document_id AND c.ordinal = k.ordinal
      JOIN knowledge_documents d ON d.id = c.document_id
      WHERE c.agent_id = ${agentId}`),
  );
}
