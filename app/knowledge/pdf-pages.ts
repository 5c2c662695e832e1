/**
 * The text of each page of a PDF, read with unpdf (PDF.js) in the document reader's process
 * (reader-process.ts), after the decompression-bomb check of pdf-streams.ts. The reader's process
 * is what bounds time and memory: PDF.js's buffers are ArrayBuffers outside the V8 heap.
 */
import { extractText, getDocumentProxy } from 'unpdf';
import { DocumentProblem } from './document-problem.ts';
import { inflationProblem } from './pdf-streams.ts';

/** The text of each page. Throws a DocumentProblem naming the problem: a decompression bomb, encrypted (a password is needed), or corrupt. */
export async function pdfPages(bytes: Uint8Array): Promise<string[]> {
  const bomb = inflationProblem(bytes);
  if (bomb) throw new DocumentProblem(bomb);
  try {
    // A plain Uint8Array: PDF.js refuses a Buffer, which is how the bytes may arrive over IPC.
    const data = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const pdf = await getDocumentProxy(data, { verbosity: 0, useSystemFonts: false });
    const { text } = await extractText(pdf, { mergePages: false });
    return text;
  } catch (error) {
    if ((error as { name?: string }).name === 'PasswordException') throw new DocumentProblem('the PDF is encrypted (it needs a password)');
    throw new DocumentProblem('the PDF is corrupt or not a PDF');
  }
}
