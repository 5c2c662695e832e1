import { listDocumentsPage, type KnowledgeDocument } from '../../sql/knowledge.ts';
import { isUuid } from '../core/schemas.ts';
import { accountOf } from '../metering/record.ts';
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
  const passages = await searchKnowledge(deps, { ...accountOf(scope), metadata: scope.usageMetadata }, query, limit, signal);
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

/** Documents of one `list_documents` page when the call names no `limit`, and the most it may ask for (at most about 300 characters each, at the longest names). */
export const DOCUMENTS_PAGE_DEFAULT = 50;
export const DOCUMENTS_PAGE_MAX = 100;

/** The cursor of the page after `document`: its position in the order (created, id), opaque to the model. */
const cursorAfter = (document: KnowledgeDocument) => Buffer.from(`${document.createdAt} ${document.id}`).toString('base64url');

/** The position a cursor names, or a failure the model reads (a cursor it made up, or cut). */
function positionOf(cursor: string): { createdAt: string; id: string } {
  const [createdAt = '', id = '', ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split(' ');
  const date = new Date(createdAt);
  if (rest.length > 0 || !isUuid(id) || Number.isNaN(date.getTime()) || date.toJSON() !== createdAt)
    throw new Error('list_documents: this cursor is not a nextCursor list_documents gave; leave it out to start from the first document');
  return { createdAt, id };
}

/**
 * The built-in `list_documents`: a page of the agent's documents (name, type, size, passages,
 * when added), oldest first, and `nextCursor` when more follow (null on the last page).
 */
export async function listDocumentsTool({ deps, scope, input }: BuiltinCall) {
  const limit = typeof input.limit === 'number' ? input.limit : DOCUMENTS_PAGE_DEFAULT;
  const after = typeof input.cursor === 'string' ? positionOf(input.cursor) : null;
  const found = await listDocumentsPage(deps.db, scope.agentId, { after, limit: limit + 1 });
  const page = found.slice(0, limit);
  const nextCursor = found.length > limit ? cursorAfter(page.at(-1)!) : null;
  return {
    documents: page.map((document) => ({
      name: document.name,
      contentType: document.contentType,
      bytes: document.bytes,
      passages: document.chunkCount,
      addedAt: document.createdAt,
    })),
    nextCursor,
    ...(nextCursor === null ? {} : { note: 'More documents follow: call list_documents again with this nextCursor as cursor.' }),
  };
}
