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
    /** UTF-8 bytes of the chunks' headings and texts (what the knowledge limits count). */
    textBytes: number;
    createdAt: Date;
  },
  chunks: readonly NewChunk[],
  vectors: VectorStore,
) {
  const row = await db.one(sql.type(Document)`
    INSERT INTO knowledge_documents (id, organization_id, agent_id, name, content_type, bytes, chunk_count, text_bytes, created_at)
    VALUES (${document.id}, ${document.organizationId}, ${document.agentId}, ${document.name}, ${document.contentType},
            ${document.bytes}, ${chunks.length}, ${document.textBytes}, ${sql.timestamp(document.createdAt)})
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

const KnowledgeUsageRow = z.strictObject({
  agentDocuments: z.number(),
  agentChunks: z.number(),
  agentTextBytes: z.number(),
  organizationChunks: z.number(),
  organizationTextBytes: z.number(),
});

/**
 * What the agent's documents hold (documents, chunks, UTF-8 bytes of the chunks' text) and what
 * every agent of its organization holds together: one index-only pass over the organization's documents.
 */
export function knowledgeUsage(db: CommonQueryMethods, organizationId: string, agentId: string) {
  return db.one(sql.type(KnowledgeUsageRow)`
    SELECT count(*) FILTER (WHERE agent_id = ${agentId})::int AS "agentDocuments",
           coalesce(sum(chunk_count) FILTER (WHERE agent_id = ${agentId}), 0)::float8 AS "agentChunks",
           coalesce(sum(text_bytes) FILTER (WHERE agent_id = ${agentId}), 0)::float8 AS "agentTextBytes",
           coalesce(sum(chunk_count), 0)::float8 AS "organizationChunks",
           coalesce(sum(text_bytes), 0)::float8 AS "organizationTextBytes"
    FROM knowledge_documents WHERE organization_id = ${organizationId}`);
}

/**
 * Serializes the uploads of one organization until the caller's transaction ends, so two uploads
 * (to the same agent or to two agents) cannot pass the organization's limits together.
 */
export async function lockOrganizationKnowledge(db: CommonQueryMethods, organizationId: string): Promise<void> {
  await db.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`knowledge_documents:${organizationId}`}, 0))`);
}

/** Deletes one of the agent's documents (its chunks go with it); false when the agent has none with this id. */
export async function deleteDocument(db: CommonQueryMethods, agentId: string, documentId: string): Promise<boolean> {
  const result = await db.query(sql.unsafe`DELETE FROM knowledge_documents WHERE id = ${documentId} AND agent_id = ${agentId}`);
  return result.rowCount > 0;
}
