import { availableParallelism } from 'node:os';
import type { AppDeps } from '../core/deps.ts';
import type { DocumentType } from '../../sql/knowledge.ts';
import type { Chunk } from './chunking.ts';
import { readDocument } from './reader.ts';

/** Every reader is busy and the queue of uploads waiting for one is full (a 503 with `Retry-After`). */
export class ReadersBusy extends Error {
  override name = 'ReadersBusy';
}

/**
 * At most `size` documents read at once; up to `queue` more wait for a reader, first come first
 * served; the next one is refused with ReadersBusy, before anything of it is started.
 */
export class DocumentReaders {
  readonly size: number;
  readonly queue: number;
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number, queue: number) {
    this.size = size;
    this.queue = queue;
  }

  /** Documents being read now. */
  get active(): number {
    return this.#active;
  }

  /** Uploads waiting for a reader. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Runs `task` with a reader's slot: at once when one is free, after the uploads before it otherwise. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active < this.size) this.#active++;
    else if (this.#waiting.length >= this.queue) throw new ReadersBusy(`${this.size} documents are being read and ${this.queue} wait`);
    // The slot is handed over by the task that frees it (the count stays), so no newcomer takes it first.
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    }
  }
}

const readersByConfig = new WeakMap<AppDeps['config'], DocumentReaders>();

/** The readers of the app built with this configuration (`DOCUMENT_READERS`, `DOCUMENT_READER_QUEUE`). */
export function documentReaders(deps: Pick<AppDeps, 'config'>): DocumentReaders {
  let readers = readersByConfig.get(deps.config);
  if (!readers) {
    const { readers: size, readerQueue } = deps.config.knowledge;
    readers = new DocumentReaders(size ?? availableParallelism(), readerQueue);
    readersByConfig.set(deps.config, readers);
  }
  return readers;
}

/**
 * The chunks of an upload, read off the event loop by one of the app's readers (reader.ts), within
 * `DOCUMENT_READ_TIMEOUT_MS` and `DOCUMENT_READER_MEMORY_MB`. Throws a DocumentProblem for a file
 * the knowledge base cannot take, and ReadersBusy when the queue is full.
 */
export function documentChunks(deps: Pick<AppDeps, 'config' | 'logger'>, type: DocumentType, bytes: Uint8Array): Promise<Chunk[]> {
  const { readTimeoutMs, readerMemoryMb } = deps.config.knowledge;
  return documentReaders(deps).run(() => readDocument(type, bytes, { timeoutMs: readTimeoutMs, memoryMb: readerMemoryMb }, deps.logger));
}
