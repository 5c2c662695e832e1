/**
 * Runs in a worker thread (pdf-text.ts): extracts the text of one PDF with unpdf (PDF.js) and
 * posts `{ pages }` or `{ failure }`. A thread of its own so that a PDF that takes too long can
 * be stopped (`worker.terminate()`), which a parse on the main thread could not be.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { extractText, getDocumentProxy } from 'unpdf';

type Failure = 'encrypted' | 'corrupt';

async function run(bytes: Uint8Array): Promise<{ pages: string[] } | { failure: Failure; detail: string }> {
  try {
    const pdf = await getDocumentProxy(bytes, { verbosity: 0, useSystemFonts: false });
    const { text } = await extractText(pdf, { mergePages: false });
    return { pages: text };
  } catch (error) {
    const name = (error as { name?: string }).name ?? '';
    const detail = (error as { message?: string }).message ?? '';
    return { failure: name === 'PasswordException' ? 'encrypted' : 'corrupt', detail: detail.slice(0, 200) };
  }
}

const { bytes } = workerData as { bytes: Uint8Array };
parentPort!.postMessage(await run(bytes));
