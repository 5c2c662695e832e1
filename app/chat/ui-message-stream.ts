import type { UIMessageChunk } from 'ai';

/** What `execute` writes a turn's chunks with. */
export type ChunkWriter = { write(chunk: UIMessageChunk): void };

/**
 * A UI message stream that `execute` writes, as the AI SDK's `createUIMessageStream` makes it
 * for a turn but without its pass-through pipe (a TransformStream held for every open turn):
 * - the chunks written, in order; a chunk written once the reader has cancelled is dropped;
 * - if `execute` fails, an `error` chunk with `onError`'s text (the stream errors if `onError` throws);
 * - closed once `execute` has settled.
 * The writers here open with a `start` chunk that names the message, so the SDK's filling in of
 * a missing `messageId` has nothing to do.
 */
export function uiMessageStream(options: {
  execute: (args: { writer: ChunkWriter }) => Promise<void>;
  onError: (error: unknown) => string;
}): ReadableStream<UIMessageChunk> {
  let controller!: ReadableStreamDefaultController<UIMessageChunk>;
  const stream = new ReadableStream<UIMessageChunk>({
    start: (started) => {
      controller = started;
    },
  });
  const write = (chunk: UIMessageChunk) => {
    try {
      controller.enqueue(chunk);
    } catch {
      // Cancelled by its reader, or already closed: the chunk goes nowhere.
    }
  };
  void (async () => {
    try {
      await options.execute({ writer: { write } });
    } catch (error) {
      let errorText: string;
      try {
        errorText = options.onError(error);
      } catch (failure) {
        try {
          controller.error(failure);
        } catch {
          // Already closed or errored.
        }
        return;
      }
      write({ type: 'error', errorText });
    }
    try {
      controller.close();
    } catch {
      // Cancelled by its reader.
    }
  })();
  return stream;
}
