import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const AI_DOCUMENT_INVALID = errorCode(400, 'AI.DOCUMENT_INVALID');
export const AI_DOCUMENT_NOT_FOUND = errorCode(404, 'AI.DOCUMENT_NOT_FOUND');
export const AI_KNOWLEDGE_LIMIT_REACHED = errorCode(409, 'AI.KNOWLEDGE_LIMIT_REACHED');

/** A file the knowledge base cannot take; `problem` names what is wrong (English only: it quotes the file). */
export const documentInvalid = (problem: string) =>
  new CodedError(AI_DOCUMENT_INVALID, { en: `The document was not added: ${problem}.`, es: `El documento no se añadió: ${problem}.` });

export const documentNotFound = () => new CodedError(AI_DOCUMENT_NOT_FOUND, { en: 'Document not found', es: 'Documento no encontrado' });

export const knowledgeLimitReached = (limit: string) =>
  new CodedError(AI_KNOWLEDGE_LIMIT_REACHED, {
    en: `The knowledge base is full: ${limit}.`,
    es: `La base de conocimiento está llena: ${limit}.`,
  });

/**
 * A knowledge search stopped at its statement timeout (`KNOWLEDGE_SEARCH_TIMEOUT_MS`): the
 * `search_knowledge_base` call ends `output-error` with this message, which the model reads.
 */
export class KnowledgeSearchTimeout extends Error {
  override name = 'KnowledgeSearchTimeout';
  constructor(timeoutMs: number) {
    super(
      `The knowledge base search was stopped after ${timeoutMs} ms (the knowledge base is large or busy). ` +
        'Try again with fewer, more specific words, or without "or".',
    );
  }
}
