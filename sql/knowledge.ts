import { sql, type CommonQueryMethods } from 'slonik';
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
) {
  const row = await db.one(sql.type(Document)`
    INSERT INTO knowledge_documents (id, organization_id, agent_id, name, content_type, bytes, chunk_count, created_at)
    VALUES (${document.id}, ${document.organizationId}, ${document.agentId}, ${document.name}, ${document.contentType},
            ${document.bytes}, ${chunks.length}, ${sql.timestamp(document.createdAt)})
    RETURNING ${documentColumns}`);
  // One statement per 500 chunks: a 10 MiB text is some thousands of chunks.
  for (let at = 0; at < chunks.length; at += 500) {
    const batch = chunks.slice(at, at + 500);
    await db.query(sql.unsafe`
      INSERT INTO knowledge_chunks (document_id, agent_id, ordinal, heading, body, embedding)
      SELECT ${document.id}, ${document.agentId}, c.ordinal, c.heading, c.body,
             CASE WHEN c.embedding IS NULL THEN NULL ELSE c.embedding::real[] END
      FROM unnest(${sql.array(
        batch.map((_, index) => at + index),
        'int4',
      )}::int[], ${sql.array(
        batch.map((chunk) => chunk.heading),
        'text',
      )}::text[], ${sql.array(
        batch.map((chunk) => chunk.body),
        'text',
      )}::text[], ${sql.array(
        batch.map((chunk) => (chunk.embedding ? `{${chunk.embedding.join(',')}}` : null)),
        'text',
      )}::text[]) AS c(ordinal, heading, body, embedding)`);
  }
  return row;
}

/** The agent's documents, oldest first. */
export function listDocuments(db: CommonQueryMethods, agentId: string) {
  return db.any(sql.type(Document)`
    SELECT ${documentColumns} FROM knowledge_documents WHERE agent_id = ${agentId} ORDER BY created_at, id`);
}

/** How many documents the agent has and their uploaded bytes, counted under a lock on the agent's row (taken by the caller). */
export function knowledgeUsage(db: CommonQueryMethods, agentId: string) {
  return db.one(sql.type(z.strictObject({ documents: z.number(), bytes: z.number() }))`
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

/**
 * The agent's passages that share a word with `query` (English stemming, `websearch_to_tsquery`
 * syntax: quotes for a phrase, `-word` to exclude), best first. A question rarely has every one
 * of its words in the passage that answers it, so the words are OR-ed for matching; the score is
 * `ts_rank_cd` (normalized to 0..1, heading words weigh more) plus 1 for a passage holding every
 * word. A query with a negation keeps its AND meaning. A query of stop words only finds nothing.
 *
 * Passages holding every word always outrank the others (score >= 1 > any other), so when at
 * least `limit` of them exist the answer is theirs alone: that cheaper AND query runs first, and
 * the OR query (which ranks every passage sharing any word) only when it finds fewer.
 */
export async function searchPassages(db: CommonQueryMethods, agentId: string, query: string, limit: number): Promise<readonly Passage[]> {
  const strict = await db.any(sql.type(Passage)`
    SELECT ${passageColumns}, (1 + ts_rank_cd(c.search, q, 32))::float8 AS score
    FROM websearch_to_tsquery('english', ${query}) AS q, knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id
    WHERE numnode(q) > 0 AND c.agent_id = ${agentId} AND c.search @@ q
    ORDER BY score DESC, c.document_id, c.ordinal
    LIMIT ${limit}`);
  if (strict.length >= limit) return strict;
  return db.any(sql.type(Passage)`
    WITH strict AS (SELECT websearch_to_tsquery('english', ${query}) AS q),
    terms AS (
      SELECT q AS strict,
             CASE WHEN strpos(q::text, '!') > 0 THEN q ELSE replace(q::text, ' & ', ' | ')::tsquery END AS loose
      FROM strict WHERE numnode(q) > 0
    )
    SELECT ${passageColumns},
           (ts_rank_cd(c.search, terms.loose, 32) + CASE WHEN c.search @@ terms.strict THEN 1 ELSE 0 END)::float8 AS score
    FROM terms, knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id
    WHERE c.agent_id = ${agentId} AND c.search @@ terms.loose
    ORDER BY score DESC, c.document_id, c.ordinal
    LIMIT ${limit}`);
}

/**
 * The agent's passages nearest to `embedding` (a unit vector) by cosine, best first: an exact
 * scan of the agent's embedded chunks (no vector index: PostgreSQL 15 here has no pgvector).
 */
export function nearestPassages(db: CommonQueryMethods, agentId: string, embedding: readonly number[], limit: number) {
  return db.any(sql.type(Passage)`
    SELECT ${passageColumns},
           (SELECT sum(a * b) FROM unnest(c.embedding, ${sql.array([...embedding], 'float4')}::real[]) AS v(a, b))::float8 AS score
    FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id
    WHERE c.agent_id = ${agentId} AND c.embedding IS NOT NULL
    ORDER BY score DESC, c.document_id, c.ordinal
    LIMIT ${limit}`);
}
