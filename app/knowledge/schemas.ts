import { Type } from '@sinclair/typebox';
import { DateTime, NON_BLANK_LINE_PATTERN, StrictObject, Uuid } from '../core/schemas.ts';
import { DOCUMENT_TYPES } from './parse.ts';

/** `POST .../documents` as JSON: the document's name and its text (Markdown when the name ends `.md`). */
export const JsonDocumentBody = StrictObject({
  name: Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: NON_BLANK_LINE_PATTERN,
    errorMessage: 'must be 1 to 200 characters on one line, not only spaces',
  }),
  text: Type.String(),
});

export const DocumentSchema = Type.Object({
  id: Uuid(),
  name: Type.String(),
  contentType: Type.Union(DOCUMENT_TYPES.map((type) => Type.Literal(type))),
  bytes: Type.Integer({ minimum: 1 }),
  chunkCount: Type.Integer({ minimum: 1 }),
  createdAt: DateTime(),
});

export const DocumentListSchema = Type.Object({ documents: Type.Array(DocumentSchema) });

export const DocumentParams = StrictObject({ agentId: Uuid(), documentId: Uuid() });
