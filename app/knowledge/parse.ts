import type { DocumentType } from '../../sql/knowledge.ts';
import { DocumentProblem } from './document-problem.ts';

export { DOCUMENT_TYPES, type DocumentType } from '../../sql/knowledge.ts';
export { DocumentProblem } from './document-problem.ts';

const ALIASES: Record<string, DocumentType> = {
  'text/plain': 'text/plain',
  'text/markdown': 'text/markdown',
  'text/x-markdown': 'text/markdown',
  'text/html': 'text/html',
  'application/xhtml+xml': 'text/html',
  'application/pdf': 'application/pdf',
};
const EXTENSIONS: Record<string, DocumentType> = {
  txt: 'text/plain',
  text: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  html: 'text/html',
  htm: 'text/html',
  pdf: 'application/pdf',
};
/** Types clients send when they do not know better; the file name's extension decides then. */
const UNKNOWN = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

/** The document type of an upload from its declared media type, or from its name's extension when the type says nothing. */
export function documentTypeOf(declared: string, name: string): DocumentType {
  const type = declared.split(';')[0]!.trim().toLowerCase();
  const known = ALIASES[type];
  if (known) return known;
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? '';
  if (UNKNOWN.has(type) && EXTENSIONS[extension]) return EXTENSIONS[extension];
  throw new DocumentProblem(
    `the file's type ${type || '(none)'} is not supported: send text/plain, text/markdown, text/html or application/pdf`,
  );
}
