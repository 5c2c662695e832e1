import { uuidv7 } from 'uuidv7';
import { lockAgentInAgency } from '../../sql/agents.ts';
import {
  insertDocument,
  knowledgeUsage,
  findPassages,
  listEmbeddings,
  nearestChunks,
  searchPassages,
  vectorStore,
  type KnowledgeDocument,
  type Passage,
  type VectorStore,
} from '../../sql/knowledge.ts';
import type { AppDeps } from '../core/deps.ts';
import { agentNotFound } from '../agents/errors.ts';
import { embedTexts, embeddingsEnabled, type EmbeddingScope } from './embeddings.ts';
import type { DocumentType } from './parse.ts';
import { documentChunks } from './readers.ts';
import { knowledgeLimitReached } from './errors.ts';

/** Largest upload (the file, or the JSON text in UTF-8). */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
/** Per agent: most documents, and most bytes uploaded (the sum of `bytes`). */
export const MAX_DOCUMENTS_PER_AGENT = 10_000;
export const MAX_KNOWLEDGE_BYTES_PER_AGENT = 500 * 1024 * 1024;
/** Passages a search answers without `limit`, and the most it may ask for. */
export const DEFAULT_PASSAGES = 5;
export const MAX_PASSAGES = 20;
/** The constant of reciprocal rank fusion: a passage at rank r of a list scores 1 / (RRF_K + r). */
export const RRF_K = 60;

const stores = new WeakMap<AppDeps['db'], Promise<VectorStore>>();

/**
 * How this server keeps embeddings (sql/knowledge.ts, VectorStore): asked of the database once per
 * pool, since migrations ran before the pool opened and nothing changes the schema while it runs.
 */
export function knowledgeVectorStore(deps: Pick<AppDeps, 'db'>): Promise<VectorStore> {
  let store = stores.get(deps.db);
  if (!store) {
    store = vectorStore(deps.db);
    store.catch(() => stores.delete(deps.db));
    stores.set(deps.db, store);
  }
  return store;
}

export type Upload = { name: string; contentType: DocumentType; bytes: Uint8Array };

/**
 * Adds a document to the agent's knowledge base: its chunks (read off the event loop, readers.ts) and,
 * when embeddings are configured, their vectors, stored in one transaction that first locks the
 * agent's row and checks the per-agent limits (so concurrent uploads cannot pass them together).
 * Parsing and embedding run before the transaction: no lock is held across a provider call.
 */
export async function addDocument(deps: AppDeps, scope: EmbeddingScope, upload: Upload): Promise<KnowledgeDocument> {
  const chunks = await documentChunks(deps, upload.contentType, upload.bytes);
  const vectors = await embedTexts(
    deps,
    scope,
    chunks.map((chunk) => (chunk.heading ? `${chunk.heading}\n\n${chunk.body}` : chunk.body)),
  );
  const store = vectors ? await knowledgeVectorStore(deps) : 'bytes';
  return deps.db.transaction(async (tx) => {
    if (!(await lockAgentInAgency(tx, scope.organizationId, scope.agentId))) throw agentNotFound();
    const usage = await knowledgeUsage(tx, scope.agentId);
    if (usage.documents + 1 > MAX_DOCUMENTS_PER_AGENT)
      throw knowledgeLimitReached(`at most ${MAX_DOCUMENTS_PER_AGENT} documents per agent`);
    if (usage.bytes + upload.bytes.byteLength > MAX_KNOWLEDGE_BYTES_PER_AGENT)
      throw knowledgeLimitReached(`at most ${MAX_KNOWLEDGE_BYTES_PER_AGENT / 1024 / 1024} MiB of documents per agent`);
    return insertDocument(
      tx,
      {
        id: uuidv7(),
        organizationId: scope.organizationId,
        agentId: scope.agentId,
        name: upload.name,
        contentType: upload.contentType,
        bytes: upload.bytes.byteLength,
        createdAt: deps.clock(),
      },
      chunks.map((chunk, index) => ({ ...chunk, embedding: vectors?.[index] ?? null })),
      store,
    );
  });
}

/**
 * The agent's `limit` passages nearest to `query` (a unit vector) by cosine, best first: where
 * the server has pgvector, its HNSW index (nearestChunks); elsewhere an exact scan of the agent's
 * embeddings in this process (float32 dot products; a dot product per row in SQL cost about 70 us
 * a chunk at 256 dimensions), whose cost grows with the agent's chunks (docs/chat.md, Decisions).
 */
async function nearestPassages(deps: AppDeps, agentId: string, query: readonly number[], limit: number): Promise<Passage[]> {
  const best =
    (await knowledgeVectorStore(deps)) === 'pgvector'
      ? await nearestChunks(deps.db, agentId, query, limit)
      : await scanEmbeddings(deps, agentId, query, limit);
  if (best.length === 0) return [];
  const passages = await findPassages(deps.db, agentId, best);
  return [...passages].sort((a, b) => b.score - a.score);
}

/** The exact scan: every embedding of the agent read and scored here; the `limit` best keys, best first. */
export async function scanEmbeddings(deps: Pick<AppDeps, 'db'>, agentId: string, query: readonly number[], limit: number) {
  const rows = await listEmbeddings(deps.db, agentId);
  const q = Float32Array.from(query);
  const best: { documentId: string; ordinal: number; score: number }[] = [];
  for (const row of rows) {
    // A Float32Array view needs a 4-byte aligned offset; a driver's buffer may be a slice of a larger one.
    const bytes = row.embedding.byteOffset % 4 === 0 ? row.embedding : Buffer.from(row.embedding);
    const vector = new Float32Array(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength >> 2, q.length));
    let score = 0;
    for (let i = 0; i < vector.length; i++) score += vector[i]! * q[i]!;
    if (best.length < limit || score > best.at(-1)!.score) {
      best.push({ documentId: row.documentId, ordinal: row.ordinal, score });
      best.sort((a, b) => b.score - a.score);
      if (best.length > limit) best.pop();
    }
  }
  return best;
}

/**
 * The agent's best passages for `query`: the full-text ranking (searchPassages), fused with the
 * embedding ranking by reciprocal rank fusion when embeddings are configured. Each list is read
 * to 4 × `limit` deep; a passage's fused score is the sum of 1 / (RRF_K + rank) over the lists
 * holding it. Without embeddings the score is the full-text one.
 */
export async function searchKnowledge(
  deps: AppDeps,
  scope: EmbeddingScope,
  query: string,
  limit: number,
  signal?: AbortSignal,
): Promise<Passage[]> {
  if (!embeddingsEnabled(deps)) return searchPassages(deps.db, scope.agentId, query, limit);
  const depth = limit * 4;
  const [textual, vector] = await Promise.all([
    searchPassages(deps.db, scope.agentId, query, depth),
    embedTexts(deps, scope, [query], signal).then((vectors) => (vectors ? nearestPassages(deps, scope.agentId, vectors[0]!, depth) : [])),
  ]);
  const fused = new Map<string, Passage>();
  for (const list of [textual, vector]) {
    list.forEach((passage, rank) => {
      const key = `${passage.documentId}/${passage.ordinal}`;
      const score = 1 / (RRF_K + rank + 1);
      const seen = fused.get(key);
      fused.set(key, seen ? { ...seen, score: seen.score + score } : { ...passage, score });
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, limit);
}
