import { listDocuments } from '../../sql/knowledge.ts';
import type { BuiltinCall } from './builtin-executor.ts';
import { DEFAULT_PASSAGES, MAX_PASSAGES, searchKnowledge } from '../knowledge/service.ts';

/** Longest passage text handed to the model (a chunk is at most about 1,200 characters; this only bounds odd ones). */
const MAX_PASSAGE_CHARS = 2_000;

/**
 * The built-in `search_knowledge_base`: the agent's best passages for the query, each with its
 * document's name, the heading it sits under and a score (higher is better; full-text rank, or
 * reciprocal-rank-fused with embeddings). An empty answer says so, so the model does not guess.
 */
export async function searchKnowledgeBaseTool({ deps, scope, input, signal }: BuiltinCall) {
  const query = String(input.query ?? '').trim();
  if (query === '') throw new Error('search_knowledge_base needs a non-empty query');
  const limit = Math.min(Math.max(Math.trunc(Number(input.limit ?? DEFAULT_PASSAGES)) || DEFAULT_PASSAGES, 1), MAX_PASSAGES);
  const passages = await searchKnowledge(
    deps,
    { organizationId: scope.agencyId, agentId: scope.agentId, userId: scope.userId },
    query,
    limit,
    signal,
  );
  return {
    query,
    passages: passages.map((passage) => ({
      document: passage.documentName,
      heading: passage.heading,
      text: passage.text.slice(0, MAX_PASSAGE_CHARS),
      score: Math.round(passage.score * 10_000) / 10_000,
    })),
    ...(passages.length === 0 ? { note: 'No passage of the knowledge base matches this query.' } : {}),
  };
}

/** The built-in `list_documents`: the agent's documents (name, type, size, passages, when added). */
export async function listDocumentsTool({ deps, scope }: BuiltinCall) {
  const documents = await listDocuments(deps.db, scope.agentId);
  return {
    documents: documents.map((document) => ({
      name: document.name,
      contentType: document.contentType,
      bytes: document.bytes,
      passages: document.chunkCount,
      addedAt: document.createdAt,
    })),
  };
}
