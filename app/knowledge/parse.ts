import { DOCUMENT_TYPES, type DocumentType } from '../../sql/knowledge.ts';
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

/**
 * The document type of an upload from its declared media type, or from its name's extension when
 * the type says nothing. A text sent as JSON (`declared` null) is Markdown when its name's
 * extension is Markdown's, else plain text.
 */
export function documentTypeOf(declared: string | null, name: string): DocumentType {
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? '';
  if (declared === null) return EXTENSIONS[extension] === 'text/markdown' ? 'text/markdown' : 'text/plain';
  const type = declared.split(';')[0]!.trim().toLowerCase();
  const known = ALIASES[type];
  if (known) return known;
  if (UNKNOWN.has(type) && EXTENSIONS[extension]) return EXTENSIONS[extension];
  throw new DocumentProblem(
    `the file's type ${type || '(none)'} is not supported: send ${DOCUMENT_TYPES.slice(0, -1).join(', ')} or ${DOCUMENT_TYPES.at(-1)}`,
  );
}
