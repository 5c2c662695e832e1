import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { DocumentType } from '../../sql/knowledge.ts';
import type { Chunk } from './chunking.ts';
import { DocumentProblem } from './document-problem.ts';
import type { ReaderAnswer, ReaderJob } from './reader-process.ts';

/** The bounds of one document's reading. */
export type ReaderLimits = { timeoutMs: number; memoryMb: number };

/** How often the watchdog reads the reader's resident memory. */
const WATCH_INTERVAL_MS = 20;
/** How much of the reader's stderr is kept for the log of an unexpected end. */
const STDERR_TAIL_CHARS = 2_000;

// The reader's entry is this module's sibling: TypeScript where the sources run as they are (Node's
// type stripping), JavaScript in the build (`dist/`).
const entry = new URL(import.meta.url.endsWith('.ts') ? './reader-process.ts' : './reader-process.js', import.meta.url);

/** Readers still running; killed when this process exits, so none outlives it. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** The resident memory of a process in MiB (Linux /proc), or undefined where it cannot be read. */
function residentMb(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/**
 * The chunks of one document, read in a process of its own (reader-process.ts): forked per
 * document, killed past `timeoutMs` (from its start) or when its resident memory, ArrayBuffers
 * included, passes `memoryMb` (a watchdog reads it every `WATCH_INTERVAL_MS`; its V8 heap is capped
 * at the same size). Throws a DocumentProblem naming the problem for a file the reader refused,
 * outlasted or outgrew, or that ended it; a plain Error when the reader itself could not start.
 */
export function readDocument(type: DocumentType, bytes: Uint8Array, limits: ReaderLimits, logger?: Logger): Promise<Chunk[]> {
  return new Promise((resolve, reject) => {
    const child = fork(entry, [], {
      // The package conditions the sources run with (`--conditions=agents-source`), and the heap cap.
      execArgv: [...process.execArgv.filter((flag) => flag.startsWith('--conditions')), `--max-old-space-size=${limits.memoryMb}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    running.add(child);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-STDERR_TAIL_CHARS)));
    let started = false;
    let stoppedFor: 'time' | 'memory' | undefined;
    let settled = false;
    const stop = (reason: 'time' | 'memory') => {
      stoppedFor ??= reason;
      child.kill('SIGKILL');
    };
    const deadline = performance.now() + limits.timeoutMs;
    const timer = setTimeout(() => stop('time'), limits.timeoutMs);
    const watchdog = setInterval(() => {
      const resident = child.pid === undefined ? undefined : residentMb(child.pid);
      if (resident !== undefined && resident > limits.memoryMb) stop('memory');
    }, WATCH_INTERVAL_MS);
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(watchdog);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      outcome();
    };
    child.on('message', (answer: ReaderAnswer) => {
      if ('started' in answer) started = true;
      // An answer read after the bound is refused like a late one: a busy event loop may read the
      // reader's message before it runs the timer that should have stopped it.
      else if (performance.now() > deadline) stop('time');
      else if ('chunks' in answer) finish(() => resolve(answer.chunks));
      else finish(() => reject(new DocumentProblem(answer.problem)));
    });
    // The process could not be started (a failed send ends in 'close', which says why).
    child.on('error', (error) => finish(() => reject(error)));
    // After the process ended and its pipes closed, so an answer sent just before is not missed.
    child.once('close', (code, signal) => {
      running.delete(child);
      finish(() => {
        const heapExhausted = signal === 'SIGABRT' || /heap out of memory|Reached heap limit/i.test(stderr);
        if (stoppedFor === 'time') reject(new DocumentProblem(`the file took longer than ${limits.timeoutMs} ms to read`));
        else if (stoppedFor === 'memory' || heapExhausted)
          reject(new DocumentProblem(`reading the file needs more than ${limits.memoryMb} MiB of memory`));
        else if (!started) reject(new Error(`the document reader did not start (${signal ?? `exit ${code}`}): ${stderr}`));
        else {
          logger?.warn({ code, signal, stderr }, 'a document reader ended without an answer');
          reject(new DocumentProblem('the file could not be read'));
        }
      });
    });
    child.send({ type, bytes } satisfies ReaderJob, () => undefined);
  });
}
