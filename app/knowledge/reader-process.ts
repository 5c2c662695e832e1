/**
 * The entry of a document reader's process (reader.ts forks one per upload): says `{ started }`
 * once loaded, takes one `{ type, bytes }`, answers `{ chunks }` or `{ problem }` (a
 * DocumentProblem's message) and exits. Its parent bounds its time and memory and kills it past
 * them; it exits by itself when the parent goes.
 */
import type { DocumentType } from '../../sql/knowledge.ts';
import { chunkText, type Chunk } from './chunking.ts';
import { DocumentProblem } from './document-problem.ts';
import { documentText } from './document-text.ts';

export type ReaderJob = { type: DocumentType; bytes: Uint8Array };
export type ReaderAnswer = { started: true } | { chunks: Chunk[] } | { problem: string };

async function read(job: ReaderJob): Promise<ReaderAnswer> {
  try {
    const chunks = chunkText(await documentText(job.type, job.bytes));
    return chunks.length > 0 ? { chunks } : { problem: 'the file has no text' };
  } catch (error) {
    if (error instanceof DocumentProblem) return { problem: error.message };
    throw error;
  }
}

const send = (answer: ReaderAnswer, then?: () => void) => process.send!(answer, undefined, {}, then);

process.once('disconnect', () => process.exit(1));
process.once('message', (job: ReaderJob) => {
  void read(job).then((answer) => send(answer, () => process.exit(0)));
});
send({ started: true });
