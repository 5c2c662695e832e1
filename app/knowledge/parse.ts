import { readableText, withoutHidden } from '../core/html-text.ts';
import { pdfPages, PdfError } from './pdf-text.ts';

import type { DocumentType } from '../../sql/knowledge.ts';

export { DOCUMENT_TYPES, type DocumentType } from '../../sql/knowledge.ts';

/** A file the knowledge base cannot take; the message names the problem (a 400). */
export class DocumentProblem extends Error {
  override name = 'DocumentProblem';
}

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

const isPdf = (bytes: Uint8Array) => Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-';

function utf8(bytes: Uint8Array, type: DocumentType): string {
  if (isPdf(bytes)) throw new DocumentProblem(`the file is a PDF, not ${type} as its type says`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new DocumentProblem(`the file is not UTF-8 text, as ${type} must be`);
  }
  if (text.includes('\u0000')) throw new DocumentProblem(`the file holds binary data (NUL bytes), not ${type} as its type says`);
  return text;
}

const BLOCKS =
  /<\/?(?:p|div|section|article|main|header|footer|aside|nav|li|ul|ol|table|tr|blockquote|pre|br|hr|dd|dt|dl|figure|figcaption)\b[^<>]*>/gi;

/**
 * The readable text of an HTML page with its structure kept as Markdown: `<h1>`-`<h6>` become
 * `#` headings and block elements end paragraphs; scripts, styles and comments go; each block's
 * tags are stripped and entities decoded (fetch_url's readableText).
 */
export function htmlAsMarkdown(html: string): string {
  const marked = withoutHidden(html)
    .replace(/<h([1-6])\b[^<>]*>/gi, (_, level: string) => `\n\n${'#'.repeat(Number(level))} `)
    .replace(/<\/h[1-6]\s*>/gi, '\n\n')
    .replace(BLOCKS, '\n\n');
  return marked
    .split(/\n\n+/)
    .map((block) => {
      const heading = /^\s*(#{1,6}) /.exec(block);
      const text = readableText(heading ? block.slice(heading[0].length) : block);
      return heading && text ? `${heading[1]} ${text}` : text;
    })
    .filter((block) => block !== '')
    .join('\n\n');
}

/**
 * The text of an upload, as Markdown-like text for the chunker. Throws a DocumentProblem for a
 * file that is not what its type says, a corrupt or encrypted PDF, one too slow to read, and a
 * file without any text.
 */
export async function documentText(type: DocumentType, bytes: Uint8Array): Promise<string> {
  let text: string;
  if (type === 'application/pdf') {
    if (!isPdf(bytes)) throw new DocumentProblem('the file is not a PDF, as its type says (it does not start with %PDF-)');
    try {
      // Pages are sections of their own: a blank line between them.
      text = (await pdfPages(bytes)).join('\n\n');
    } catch (error) {
      if (error instanceof PdfError) throw new DocumentProblem(error.message);
      throw error;
    }
  } else {
    const raw = utf8(bytes, type);
    text = type === 'text/html' ? htmlAsMarkdown(raw) : raw;
  }
  if (text.trim() === '') throw new DocumentProblem('the file has no text');
  return text;
}
