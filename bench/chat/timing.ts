/** Timing of SSE turns, shared by the chat bench's cells and its floors. */
import { performance } from 'node:perf_hooks';

export type Sample = { firstMs: number; totalMs: number };

/** Reads an SSE body until `[DONE]` (or its end), noting when the first text arrives. */
export async function timeStream(response: Response, started: number, isText: (data: string) => boolean): Promise<Sample> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let firstMs = Number.NaN;
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = event.startsWith('data: ') ? event.slice(6) : '';
      if (Number.isNaN(firstMs) && isText(data)) firstMs = performance.now() - started;
    }
  }
  return { firstMs, totalMs: performance.now() - started };
}

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

export async function runConcurrent(turns: number, concurrency: number, one: (i: number) => Promise<Sample>): Promise<Sample[]> {
  const samples: Sample[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < turns) samples.push(await one(next++));
    }),
  );
  return samples;
}
