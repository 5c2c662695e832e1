/**
 * The text of an upload, read in the document reader's process (reader-process.ts): UTF-8 text,
 * HTML as Markdown, or a PDF's pages. Everything here is linear in the file's size (no pattern
 * with nested or ambiguous quantifiers runs over its text; `npm run lint` holds app/ to that).
 */
import type { DocumentType } from '../../sql/knowledge.ts';
import { readableText, withoutHidden } from '../core/html-text.ts';
import { DocumentProblem } from './document-problem.ts';
import { pdfPages } from './pdf-pages.ts';

/** Most characters of text one document may yield (a PDF's compressed streams can hold far more than its bytes). */
export const MAX_DOCUMENT_TEXT_CHARS = 10 * 1024 * 1024;

export const isPdf = (bytes: Uint8Array) => Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-';

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
 * file that is not what its type says, a corrupt, encrypted or inflating PDF (pdf-pages.ts), a
 * file without any text and one whose text is longer than `MAX_DOCUMENT_TEXT_CHARS`.
 */
export async function documentText(type: DocumentType, bytes: Uint8Array): Promise<string> {
  let text: string;
  if (type === 'application/pdf') {
    if (!isPdf(bytes)) throw new DocumentProblem('the file is not a PDF, as its type says (it does not start with %PDF-)');
    // Pages are sections of their own: a blank line between them.
    text = (await pdfPages(bytes)).join('\n\n');
  } else {
    const raw = utf8(bytes, type);
    text = type === 'text/html' ? htmlAsMarkdown(raw) : raw;
  }
  if (text.trim() === '') throw new DocumentProblem('the file has no text');
  if (text.length > MAX_DOCUMENT_TEXT_CHARS) throw new DocumentProblem(`its text is longer than ${MAX_DOCUMENT_TEXT_CHARS} characters`);
  return text;
}
