/**
 * The decompression-bomb check of a PDF, before PDF.js reads it: every FlateDecode stream that
 * text extraction may decode (all but images, which it never decodes) is inflated with zlib up to
 * a bound, and a PDF whose streams inflate past it is refused, naming the problem. A 1 MB PDF can
 * hold a stream of 1 GiB of zeros; PDF.js would inflate it whole into ArrayBuffers. The check
 * is a fast refusal, not the memory bound: a bomb it cannot see (another filter first, an
 * encrypted stream) meets the reader process's memory watchdog (reader.ts).
 */
import { constants, inflateSync } from 'node:zlib';

const MIB = 1024 * 1024;
/** Most bytes one stream may inflate to (a page's content stream is some KB; a font some MB). */
export const MAX_STREAM_INFLATED_BYTES = 64 * MIB;
/** Most bytes all the checked streams together may inflate to. */
export const MAX_PDF_INFLATED_BYTES = 256 * MIB;
/** How far before `stream` its dictionary is looked for (after the object's `obj` keyword). */
const DICTIONARY_WINDOW = 4096;

/** Whether `text[at]` is a PDF delimiter or white space, or outside the text (a keyword's boundary). */
const boundary = (text: string, at: number) => at < 0 || at >= text.length || /[\s<>[\]()/%{}]/.test(text[at]!);

/**
 * Why the PDF is a decompression bomb, or undefined. One forward pass: each `stream` keyword,
 * the dictionary since the last `obj` before it, its data up to `endstream` (where the scan
 * goes on, so no byte is searched twice). Data that is not zlib is left to PDF.js.
 */
export function inflationProblem(
  bytes: Uint8Array,
  limits = { stream: MAX_STREAM_INFLATED_BYTES, total: MAX_PDF_INFLATED_BYTES },
): string | undefined {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = data.toString('latin1');
  let total = 0;
  let at = 0;
  let objEnd = -1;
  let nextObj = text.indexOf('obj');
  for (;;) {
    const keyword = text.indexOf('stream', at);
    if (keyword < 0) return undefined;
    at = keyword + 6;
    if (!boundary(text, keyword - 1) || !(text[at] === '\r' || text[at] === '\n')) continue;
    // The last `obj` keyword before this stream: each search goes on from the one before.
    while (nextObj >= 0 && nextObj < keyword) {
      if (boundary(text, nextObj - 1) && boundary(text, nextObj + 3)) objEnd = nextObj + 3;
      nextObj = text.indexOf('obj', nextObj + 3);
    }
    const start = text[at] === '\r' && text[at + 1] === '\n' ? at + 2 : at + 1;
    const endstream = text.indexOf('endstream', start);
    const end = endstream < 0 ? text.length : endstream;
    at = end;
    if (objEnd < 0 || keyword - objEnd > DICTIONARY_WINDOW) continue;
    const dictionary = text.slice(objEnd, keyword);
    if (!dictionary.includes('/FlateDecode') || /\/Subtype\s*\/Image\b/.test(dictionary)) continue;
    const room = Math.min(limits.stream, limits.total - total);
    let inflated: number;
    try {
      inflated = inflateSync(data.subarray(start, end), { maxOutputLength: room, finishFlush: constants.Z_SYNC_FLUSH }).length;
    } catch (error) {
      if ((error as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE') continue;
      return room === limits.stream
        ? `the PDF holds a compressed stream that inflates to more than ${limits.stream / MIB} MiB (a decompression bomb)`
        : `the PDF's compressed streams inflate to more than ${limits.total / MIB} MiB together (a decompression bomb)`;
    }
    total += inflated;
  }
}
