import { StatementTimeoutError } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { lockAgentInOrganization } from '../../sql/agents.ts';
import { insertDocument, lockOrganizationKnowledge, vectorStore, type KnowledgeDocument, type VectorStore } from '../../sql/knowledge.ts';
import {
  embeddedChunksUpTo,
  findPassages,
  listEmbeddings,
  nearestChunks,
  searchPassages,
  type Passage,
} from '../../sql/knowledge-search.ts';
import type { AppDeps } from '../core/deps.ts';
import { agentNotFound } from '../agents/errors.ts';
import { embedTexts, embeddingsEnabled, type EmbeddingScope } from './embeddings.ts';
import type { DocumentType } from './parse.ts';
import { KnowledgeSearchTimeout } from './errors.ts';
import { checkKnowledgeLimits, footprintOf } from './limits.ts';
import { checkDocumentsLimit } from '../plans/limits.ts';
import { documentChunks } from './readers.ts';
import { SearchSlots } from './search-slots.ts';

/** Largest upload (the file, or the JSON text in UTF-8). */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
/** Passages a search answers without `limit`, and the most it may ask for. */
export const DEFAULT_PASSAGES = 5;
export const MAX_PASSAGES = 20;
/** The constant of reciprocal rank fusion: a passage at rank r of a list scores 1 / (RRF_K + r). */
export const RRF_K = 60;
/** Searches of one organization waiting for a slot (KNOWLEDGE_SEARCHES_PER_ORGANIZATION) at most; one more is refused. */
export const SEARCHES_WAITING_PER_ORGANIZATION = 32;

const slots = new WeakMap<AppDeps, SearchSlots>();
const searchSlots = (deps: AppDeps) => {
  let found = slots.get(deps);
  if (!found) slots.set(deps, (found = new SearchSlots(deps.config.knowledge.searchesPerOrganization, SEARCHES_WAITING_PER_ORGANIZATION)));
  return found;
};

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
 * when embeddings are configured, their vectors. The knowledge limits (limits.ts) are checked
 * before anything is spent, and again in the transaction that stores the document, under the
 * organization's knowledge lock and the agent's row lock (concurrent uploads cannot pass a limit
 * together). Parsing and embedding run before the transaction: no lock is held across a provider call.
 */
export async function addDocument(deps: AppDeps, scope: EmbeddingScope, upload: Upload): Promise<KnowledgeDocument> {
  const chunks = await documentChunks(deps, upload.contentType, upload.bytes);
  const footprint = footprintOf(chunks);
  await checkKnowledgeLimits(deps.db, deps.config.knowledge, scope, footprint);
  await checkDocumentsLimit(deps.db, scope.organizationId, upload.bytes.byteLength);
  // Everything above is free; the embedding call below is the upload's one paid call (the platform key).
  const vectors = await embedTexts(
    deps,
    scope,
    chunks.map((chunk) => (chunk.heading ? `${chunk.heading}\n\n${chunk.body}` : chunk.body)),
    { action: 'document_indexing' },
  );
  const store = vectors ? await knowledgeVectorStore(deps) : 'bytes';
  return deps.db.transaction(async (tx) => {
    await lockOrganizationKnowledge(tx, scope.organizationId);
    if (!(await lockAgentInOrganization(tx, scope.organizationId, scope.agentId))) throw agentNotFound();
    await checkKnowledgeLimits(tx, deps.config.knowledge, scope, footprint);
    await checkDocumentsLimit(tx, scope.organizationId, upload.bytes.byteLength);
    return insertDocument(
      tx,
      {
        id: uuidv7(),
        organizationId: scope.organizationId,
        agentId: scope.agentId,
        name: upload.name,
        contentType: upload.contentType,
        bytes: upload.bytes.byteLength,
        textBytes: footprint.textBytes,
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
 * a chunk at 256 dimensions), whose cost grows with the agent's chunks (docs/agents-and-tools.md, Decisions).
 */
async function nearestPassages(deps: AppDeps, agentId: string, query: readonly number[], limit: number): Promise<Passage[]> {
  const timeoutMs = deps.config.knowledge.searchTimeoutMs;
  const best =
    (await knowledgeVectorStore(deps)) === 'pgvector'
      ? await nearestChunks(deps.db, agentId, query, limit, timeoutMs)
      : await scanEmbeddings(deps.db, agentId, query, limit, timeoutMs);
  if (best.length === 0) return [];
  const passages = await findPassages(deps.db, agentId, best, timeoutMs);
  return [...passages].sort((a, b) => b.score - a.score);
}

/** The exact scan: every embedding of the agent read (within `timeoutMs`) and scored here; the `limit` best keys, best first. */
export async function scanEmbeddings(db: AppDeps['db'], agentId: string, query: readonly number[], limit: number, timeoutMs: number) {
  const rows = await listEmbeddings(db, agentId, timeoutMs);
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
 * Whether a search ranks the agent's embeddings: always on a pgvector store (the HNSW index
 * bounds the work), on a bytes store only while the agent has at most
 * `KNOWLEDGE_EXACT_SCAN_MAX_CHUNKS` embedded chunks (the exact scan reads and scores every one of
 * them in this process). Past that the search is full-text only, and says so in the log.
 */
async function vectorRankingRuns(deps: AppDeps, agentId: string): Promise<boolean> {
  if ((await knowledgeVectorStore(deps)) === 'pgvector') return true;
  const cap = deps.config.knowledge.exactScanMaxChunks;
  if ((await embeddedChunksUpTo(deps.db, agentId, cap, deps.config.knowledge.searchTimeoutMs)) <= cap) return true;
  deps.logger.warn(
    { agentId, exactScanMaxChunks: cap },
    'knowledge search: more embedded passages than KNOWLEDGE_EXACT_SCAN_MAX_CHUNKS and no pgvector; ranked by full text only',
  );
  return false;
}

/**
 * The agent's best passages for `query`: the full-text ranking (searchPassages), fused with the
 * embedding ranking by reciprocal rank fusion when embeddings are configured (and ranked: see
 * vectorRankingRuns; the question is embedded only then). Each list is read to 4 × `limit` deep;
 * a passage's fused score is the sum of 1 / (RRF_K + rank) over the lists holding it. Without
 * embeddings the score is the full-text one. Every statement of the search stops after
 * `KNOWLEDGE_SEARCH_TIMEOUT_MS`: the search then throws KnowledgeSearchTimeout, whose message the
 * tool call's `output-error` carries to the model. An organization's searches run at most
 * `KNOWLEDGE_SEARCHES_PER_ORGANIZATION` at once in this process (search-slots.ts), so one
 * tenant's parallel turns take a bounded share of the database; past the waiting ones, a search
 * is refused at once (SearchSlotsFull, an `output-error` too).
 */
export async function searchKnowledge(
  deps: AppDeps,
  scope: EmbeddingScope,
  query: string,
  limit: number,
  signal?: AbortSignal,
): Promise<Passage[]> {
  const timeoutMs = deps.config.knowledge.searchTimeoutMs;
  const release = await searchSlots(deps).acquire(scope.organizationId, signal);
  try {
    if (!embeddingsEnabled(deps)) return await searchPassages(deps.db, scope.agentId, query, limit, timeoutMs);
    const depth = limit * 4;
    const ranked = async () => {
      if (!(await vectorRankingRuns(deps, scope.agentId))) return [];
      const vectors = await embedTexts(deps, scope, [query], { action: 'rag_query_embedding', ...(signal ? { signal } : {}) });
      return vectors ? nearestPassages(deps, scope.agentId, vectors[0]!, depth) : [];
    };
    const [textual, vector] = await Promise.all([searchPassages(deps.db, scope.agentId, query, depth, timeoutMs), ranked()]);
    return fuse([textual, vector], limit);
  } catch (error) {
    if (error instanceof StatementTimeoutError) throw new KnowledgeSearchTimeout(timeoutMs);
    throw error;
  } finally {
    release();
  }
}

/** Reciprocal rank fusion of best-first lists: each passage scores the sum of 1 / (RRF_K + rank) over the lists holding it. */
function fuse(lists: readonly Passage[][], limit: number): Passage[] {
  const fused = new Map<string, Passage>();
  for (const list of lists) {
    list.forEach((passage, rank) => {
      const key = `${passage.documentId}/${passage.ordinal}`;
      const score = 1 / (RRF_K + rank + 1);
      const seen = fused.get(key);
      fused.set(key, seen ? { ...seen, score: seen.score + score } : { ...passage, score });
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, limit);
}
