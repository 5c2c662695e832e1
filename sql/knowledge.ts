import { sql, type CommonQueryMethods, type DatabasePool } from 'slonik';
import { z } from 'zod';

/** The types a knowledge base takes (the upload route maps file types onto them). */
export const DOCUMENT_TYPES = ['text/plain', 'text/markdown', 'text/html', 'application/pdf'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

const Document = z.strictObject({
  id: z.string(),
  name: z.string(),
  contentType: z.enum(DOCUMENT_TYPES),
  bytes: z.number(),
  chunkCount: z.number(),
  createdAt: z.string(),
});
export type KnowledgeDocument = z.infer<typeof Document>;

const documentColumns = sql.fragment`
  id, name, content_type AS "contentType", bytes, chunk_count AS "chunkCount", created_at AS "createdAt"`;

export type NewChunk = { heading: string; body: string; embedding?: number[] | null };

/**
 * Where a server keeps chunk embeddings: `pgvector` where sql/migrations/1040_knowledge_vectors.sql
 * found the extension (the `embedding_vector` column, HNSW-indexed), else `bytes` (float32
 * little-endian in `embedding`, scanned by the service). Read once per pool (vectorStore).
 */
export type VectorStore = 'pgvector' | 'bytes';

const IndexedRow = z.strictObject({ indexed: z.boolean() });

export async function vectorStore(db: CommonQueryMethods): Promise<VectorStore> {
  const indexed = await db.oneFirst(sql.type(IndexedRow)`
    SELECT EXISTS (
      SELECT 1 FROM pg_attribute
      WHERE attrelid = 'knowledge_chunks'::regclass AND attname = 'embedding_vector' AND NOT attisdropped
    ) AS indexed`);
  return indexed ? 'pgvector' : 'bytes';
}

/** Stores a document and its chunks (numbered from 0), in the caller's transaction. */
export async function insertDocument(
  db: CommonQueryMethods,
  document: {
    id: string;
    organizationId: string;
    agentId: string;
    name: string;
    contentType: DocumentType;
    bytes: number;
    createdAt: Date;
  },
  chunks: readonly NewChunk[],
  vectors: VectorStore,
) {
  const row = await db.one(sql.type(Document)`
    INSERT INTO knowledge_documents (id, organization_id, agent_id, name, content_type, bytes, chunk_count, created_at)
    VALUES (${document.id}, ${document.organizationId}, ${document.agentId}, ${document.name}, ${document.contentType},
            ${document.bytes}, ${chunks.length}, ${sql.timestamp(document.createdAt)})
    RETURNING ${documentColumns}`);
  // One statement per 500 chunks: a 10 MiB text is some thousands of chunks.
  for (let at = 0; at < chunks.length; at += 500) {
    const batch = chunks.slice(at, at + 500);
    const ordinals = sql.array(
      batch.map((_, index) => at + index),
      'int4',
    );
    const headings = sql.array(
      batch.map((chunk) => chunk.heading),
      'text',
    );
    const bodies = sql.array(
      batch.map((chunk) => chunk.body),
      'text',
    );
    await db.query(
      vectors === 'pgvector'
        ? sql.unsafe`
      INSERT INTO knowledge_chunks (document_id, agent_id, ordinal, heading, body, embedding_vector)
      SELECT ${document.id}, ${document.agentId}, c.ordinal, c.heading, c.body, c.embedding::vector
      FROM unnest(${ordinals}::int[], ${headings}::text[], ${bodies}::text[], ${sql.array(
        batch.map((chunk) => (chunk.embedding ? `[${chunk.embedding.join(',')}]` : null)),
        'text',
      )}::text[]) AS c(ordinal, heading, body, embedding)`
        : sql.unsafe`
      INSERT INTO knowledge_chunks (document_id, agent_id, ordinal, heading, body, embedding)
      SELECT ${document.id}, ${document.agentId}, c.ordinal, c.heading, c.body, decode(c.embedding, 'hex')
      FROM unnest(${ordinals}::int[], ${headings}::text[], ${bodies}::text[], ${sql.array(
        batch.map((chunk) => (chunk.embedding ? Buffer.from(Float32Array.from(chunk.embedding).buffer).toString('hex') : null)),
        'text',
      )}::text[]) AS c(ordinal, heading, body, embedding)`,
    );
  }
  return row;
}

/** The agent's documents, oldest first. */
export function listDocuments(db: CommonQueryMethods, agentId: string) {
  return db.any(sql.type(Document)`
    SELECT ${documentColumns} FROM knowledge_documents WHERE agent_id = ${agentId} ORDER BY created_at, id`);
}

/**
 * One page of the agent's documents, oldest first: at most `limit` of those after `after` (the
 * `createdAt` and `id` of the last document of the page before), or from the first when null.
 * Keyed on the order's columns, so a document added or removed between pages shifts nothing.
 */
export function listDocumentsPage(
  db: CommonQueryMethods,
  agentId: string,
  page: { after: { createdAt: string; id: string } | null; limit: number },
) {
  const after = page.after
    ? sql.fragment`AND (created_at, id) > (${page.after.createdAt}::timestamptz, ${page.after.id}::uuid)`
    : sql.fragment``;
  return db.any(sql.type(Document)`
    SELECT ${documentColumns} FROM knowledge_documents WHERE agent_id = ${agentId} ${after}
    ORDER BY created_at, id LIMIT ${page.limit}`);
}

const DocumentsBytesRow = z.strictObject({ documents: z.number(), bytes: z.number() });

/** How many documents the agent has and their uploaded bytes, counted under a lock on the agent's row (taken by the caller). */
export function knowledgeUsage(db: CommonQueryMethods, agentId: string) {
  return db.one(sql.type(DocumentsBytesRow)`
    SELECT count(*)::int AS documents, coalesce(sum(bytes), 0)::bigint::float8 AS bytes
    FROM knowledge_documents WHERE agent_id = ${agentId}`);
}

/** Deletes one of the agent's documents (its chunks go with it); false when the agent has none with this id. */
export async function deleteDocument(db: CommonQueryMethods, agentId: string, documentId: string): Promise<boolean> {
  const result = await db.query(sql.unsafe`DELETE FROM knowledge_documents WHERE id = ${documentId} AND agent_id = ${agentId}`);
  return result.rowCount > 0;
}

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

/** Passages ranked when no two of the question's words meet in enough of them: the first this many sharing any word. */
export const ANY_WORD_CANDIDATES = 1_000;
/** Most distinct words of a question the relaxation uses (the AND query uses all). */
const MAX_LADDER_WORDS = 8;

const QueryShape = z.strictObject({ operators: z.boolean(), words: z.array(z.string()) });

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
 * any n-1 of them, ... then any 2, each step a selective GIN query; last, passages holding any
 * one word, ranked among the first ANY_WORD_CANDIDATES that hold one (ranking every passage that
 * shares one common word is what made an unbounded OR slow: bench/knowledge). A passage's score
 * is the number of the question's words it holds (the step that found it) plus its
 * `ts_rank_cd` (normalized to 0..1; heading words weigh more), so more words always rank first.
 * A query with operators (a quoted phrase, `-word`, `or`) is taken as written, without relaxing.
 * A query of stop words only finds nothing.
 */
export async function searchPassages(db: CommonQueryMethods, agentId: string, query: string, limit: number): Promise<Passage[]> {
  const shape = await db.one(sql.type(QueryShape)`
    SELECT q::text ~ '[!|]|<' AS operators,
           coalesce((SELECT array_agg(DISTINCT word ORDER BY word) FROM unnest(tsvector_to_array(to_tsvector('english', ${query}))) AS word),
                    '{}') AS words
    FROM websearch_to_tsquery('english', ${query}) AS q`);
  if (shape.words.length === 0) return [];
  const found = new Map<string, Passage>();
  const step = async (match: ReturnType<typeof sql.fragment>, words: number, candidates?: number) => {
    const rows = await db.any(sql.type(Passage)`
      WITH matching AS (
        SELECT c.document_id, c.ordinal, c.heading, c.body, c.search FROM knowledge_chunks c, (SELECT ${match} AS q) AS m
        WHERE c.agent_id = ${agentId} AND c.search @@ m.q
        ${candidates ? sql.fragment`LIMIT ${candidates}` : sql.fragment``}
      )
      SELECT c.document_id AS "documentId", d.name AS "documentName", c.ordinal, c.heading, c.body AS text,
             (${words} + ts_rank_cd(c.search, m.q, 32))::float8 AS score
      FROM matching c JOIN knowledge_documents d ON d.id = c.document_id, (SELECT ${match} AS q) AS m
      ORDER BY score DESC, c.document_id, c.ordinal
      LIMIT ${limit + found.size}`);
    for (const row of rows) if (!found.has(`${row.documentId}/${row.ordinal}`)) found.set(`${row.documentId}/${row.ordinal}`, row);
  };
  const all = shape.words.length;
  await step(sql.fragment`websearch_to_tsquery('english', ${query})`, all);
  if (!shape.operators) {
    const words = shape.words.slice(0, MAX_LADDER_WORDS);
    for (let size = Math.min(all, words.length) - 1; size >= 2 && found.size < limit; size--)
      await step(sql.fragment`${atLeast(words, size)}::tsquery`, size);
    if (found.size < limit) await step(sql.fragment`${atLeast(words, 1)}::tsquery`, 1, ANY_WORD_CANDIDATES);
  }
  return [...found.values()].sort((a, b) => b.score - a.score).slice(0, limit);
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
export async function nearestChunks(db: DatabasePool, agentId: string, query: readonly number[], limit: number) {
  const type = INDEXED_VECTOR_TYPES.get(query.length) ?? sql.fragment`vector`;
  const literal = `[${query.join(',')}]`;
  return db.transaction(async (tx) => {
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

const DocumentIdOrdinalEmbeddingRow = z.strictObject({ documentId: z.string(), ordinal: z.number(), embedding: z.instanceof(Buffer) });

/** The embeddings of the agent's chunks (float32 little-endian unit vectors), for the service's exact scan on a `bytes` store. */
export function listEmbeddings(db: CommonQueryMethods, agentId: string) {
  return db.any(sql.type(DocumentIdOrdinalEmbeddingRow)`
    SELECT document_id AS "documentId", ordinal, embedding FROM knowledge_chunks
    WHERE agent_id = ${agentId} AND embedding IS NOT NULL`);
}

/** The agent's passages with these keys, each with the score given (in no particular order). */
export function findPassages(
  db: CommonQueryMethods,
  agentId: string,
  keys: readonly { documentId: string; ordinal: number; score: number }[],
) {
  return db.any(sql.type(Passage)`
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
    WHERE c.agent_id = ${agentId}`);
}
