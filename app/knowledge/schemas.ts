import { Type } from '@sinclair/typebox';
import { DateTime, StrictObject, Uuid } from '../core/schemas.ts';
import { DOCUMENT_TYPES } from './parse.ts';

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
