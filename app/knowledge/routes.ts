import { deleteDocument, listDocuments } from '../../sql/knowledge.ts';
import { AgentIdParams } from '../agents/schemas.ts';
import { AI_BUDGET_EXCEEDED } from '../analytics/budget/errors.ts';
import { AI_MODEL_NOT_AVAILABLE } from '../metering/errors.ts';
import { agentRoute } from '../agents/scope.ts';
import { serviceUnavailable } from '../core/errors.ts';
import { defineRoute } from '../core/route.ts';
import { CodedErrorBody, ValidationErrorBody } from '../core/schemas.ts';
import { AI_DOCUMENT_INVALID, AI_DOCUMENT_NOT_FOUND, AI_KNOWLEDGE_LIMIT_REACHED, documentInvalid, documentNotFound } from './errors.ts';
import { DOCUMENT_TYPES, documentTypeOf, DocumentProblem } from './parse.ts';
import { DocumentListSchema, DocumentParams, DocumentSchema } from './schemas.ts';
import { ReadersBusy } from './readers.ts';
import { addDocument, MAX_DOCUMENT_BYTES } from './service.ts';
import { PLANS_LIMIT_REACHED } from '../plans/errors.ts';

const tags = ['knowledge'];
/** The wait a 503 of busy readers asks for: most documents are read within a second. */
const READERS_BUSY_RETRY_AFTER_SECONDS = 1;

/** An agent's knowledge base (docs/agents-and-tools.md, "Knowledge base"): the documents its search tools read. */
export const knowledgeRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ai/agents/:agentId/documents',
    summary: "Add a document to an agent's knowledge base",
    description:
      `A \`multipart/form-data\` file in the field \`file\` (${DOCUMENT_TYPES.join(', ')}; the name is the ` +
      `file's) or JSON \`{ name, text }\`, at most ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB. The text is split into passages ` +
      'along its headings and paragraphs and ' +
      'indexed for search. A file that is not what its type says, a corrupt or encrypted PDF, a decompression bomb, one too slow ' +
      'to read or needing too much memory and a file without text are 400 `AI.DOCUMENT_INVALID` naming the problem. Documents are ' +
      'read a few at once (one per core); when every reader is busy and the queue of waiting uploads is full the answer is 503 ' +
      '`CORE.SERVICE_UNAVAILABLE` with `Retry-After`.',
    tags,
    rateLimit: { limit: 60, windowMs: '1m', identifierType: 'userId', source: 'project' },
    ...agentRoute({ access: 'update' }),
    schemas: { params: AgentIdParams },
    body: { kind: 'multipart', limitBytes: MAX_DOCUMENT_BYTES, mediaTypes: DOCUMENT_TYPES },
    status: 201,
    errors: [AI_DOCUMENT_INVALID, AI_KNOWLEDGE_LIMIT_REACHED, PLANS_LIMIT_REACHED, AI_MODEL_NOT_AVAILABLE, AI_BUDGET_EXCEEDED],
    responses: {
      201: { description: 'The document was added', schema: DocumentSchema },
      400: { description: 'Invalid body, or a file the knowledge base cannot take', schema: ValidationErrorBody },
      503: {
        description:
          'Every document reader is busy and the queue of waiting uploads is full (`CORE.SERVICE_UNAVAILABLE`, with `Retry-After`)',
        schema: CodedErrorBody,
      },
    },
    handler: async ({ deps, scope, agent, body, ctx }) => {
      try {
        const upload = { name: body.name, contentType: documentTypeOf(body.mediaType, body.name), bytes: body.bytes };
        return await addDocument(deps, { organizationId: scope.organizationId, agentId: agent.id, userId: scope.userId }, upload);
      } catch (error) {
        if (error instanceof DocumentProblem) throw documentInvalid(error.message);
        if (error instanceof ReadersBusy) {
          ctx.set('Retry-After', String(READERS_BUSY_RETRY_AFTER_SECONDS));
          throw serviceUnavailable(error, READERS_BUSY_RETRY_AFTER_SECONDS);
        }
        throw error;
      }
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/documents',
    summary: "An agent's documents, oldest first",
    tags,
    ...agentRoute({ access: 'read' }),
    schemas: { params: AgentIdParams },
    responses: { 200: { description: 'The documents', schema: DocumentListSchema } },
    handler: async ({ deps, agent }) => ({ documents: await listDocuments(deps.db, agent.id) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/ai/agents/:agentId/documents/:documentId',
    summary: "Remove a document (and its passages) from an agent's knowledge base",
    tags,
    ...agentRoute({ access: 'update' }),
    schemas: { params: DocumentParams },
    status: 204,
    errors: [AI_DOCUMENT_NOT_FOUND],
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, agent, params }) => {
      if (!(await deleteDocument(deps.db, agent.id, params.documentId))) throw documentNotFound();
    },
  }),
];
