import { Worker } from 'node:worker_threads';

/** Longest a PDF may take to parse; the thread parsing it is stopped then. */
export const PDF_PARSE_TIMEOUT_MS = 15_000;
/** Heap of the parsing thread: a PDF built to exhaust memory stops there, not the service. */
const PDF_WORKER_HEAP_MB = 256;

export class PdfError extends Error {
  override name = 'PdfError';
  readonly reason: 'encrypted' | 'corrupt' | 'timeout';
  constructor(message: string, reason: 'encrypted' | 'corrupt' | 'timeout') {
    super(message);
    this.reason = reason;
  }
}

// The worker is this module's sibling: TypeScript where the sources run as they are (Node's type
// stripping), JavaScript in the build (`dist/`).
const workerUrl = new URL(import.meta.url.endsWith('.ts') ? './pdf-worker.ts' : './pdf-worker.js', import.meta.url);
const startWorker = (workerData: unknown, options: { resourceLimits: { maxOldGenerationSizeMb: number } }) =>
  new Worker(workerUrl, { workerData, ...options, stdout: true, stderr: true });

/**
 * The text of each page of a PDF, parsed in a worker thread with a bounded heap and stopped
 * after `timeoutMs`. Throws a PdfError naming the problem: encrypted (a password is needed),
 * corrupt (not a PDF PDF.js can read), or timeout.
 */
export function pdfPages(bytes: Uint8Array, timeoutMs = PDF_PARSE_TIMEOUT_MS): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const worker = startWorker({ bytes }, { resourceLimits: { maxOldGenerationSizeMb: PDF_WORKER_HEAP_MB } });
    // What PDF.js prints is dropped (verbosity 0 leaves little).
    worker.stdout.resume();
    worker.stderr.resume();
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      outcome();
    };
    const timer = setTimeout(
      () => finish(() => reject(new PdfError(`the PDF took longer than ${timeoutMs} ms to read`, 'timeout'))),
      timeoutMs,
    );
    worker.once('message', (answer: { pages: string[] } | { failure: 'encrypted' | 'corrupt'; detail: string }) =>
      finish(() => {
        if ('pages' in answer) resolve(answer.pages);
        else if (answer.failure === 'encrypted') reject(new PdfError('the PDF is encrypted (it needs a password)', 'encrypted'));
        else reject(new PdfError('the PDF is corrupt or not a PDF', 'corrupt'));
      }),
    );
    worker.once('error', () => finish(() => reject(new PdfError('the PDF is corrupt or could not be read', 'corrupt'))));
    worker.once('exit', () => finish(() => reject(new PdfError('the PDF could not be read', 'corrupt'))));
  });
}
