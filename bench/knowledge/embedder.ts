import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Dimensions of the scripted embeddings (a real model has 256-3,072; the scan's cost grows with them). */
export const DIMENSIONS = Number(process.env.BENCH_EMBEDDING_DIMENSIONS ?? 256);

/** A scripted OpenAI-compatible embedding endpoint: each word hashed into a dimension (a bag of words). */
export async function startEmbedder(): Promise<{ url: string; calls: number; close(): Promise<void> }> {
  const state = { calls: 0 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      state.calls += 1;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string[] };
      const data = body.input.map((text, index) => {
        const vector = new Array<number>(DIMENSIONS).fill(0);
        for (const word of text.split(/\W+/)) {
          let hash = 2166136261;
          for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 16777619);
          vector[(hash >>> 0) % DIMENSIONS]! += 1;
        }
        return { object: 'embedding', index, embedding: vector };
      });
      const tokens = body.input.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ object: 'list', data, usage: { prompt_tokens: tokens, total_tokens: tokens } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get calls() {
      return state.calls;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
