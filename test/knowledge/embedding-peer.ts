import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted OpenAI-compatible embedding endpoint on loopback (`POST /v1/embeddings`): each text
 * becomes a vector of concept counts, where a concept is a group of words meaning the same
 * ("arrive", "delivery", "days"...). So texts that share a meaning but not their words are near,
 * which full-text search alone cannot see. `usage.prompt_tokens` is the words of the request.
 */
export const CONCEPTS: string[][] = [
  ['arrive', 'arrives', 'delivery', 'deliver', 'days', 'takes', 'when'],
  ['money', 'refund', 'refunds', 'paid', 'back'],
  ['password', 'sign-in', 'reset', 'login'],
  ['pay', 'payment', 'card', 'cards', 'paypal', 'debit'],
];

/** The concept counts, zero-padded to `dimensions` (padding changes no cosine). */
const vectorOf = (text: string, dimensions: number) => {
  const words = text.toLowerCase().split(/[^a-z-]+/);
  const vector = [...CONCEPTS.map((group) => words.filter((word) => group.includes(word)).length), 0.01];
  return [...vector, ...new Array<number>(Math.max(0, dimensions - vector.length)).fill(0)];
};

export type EmbeddingPeer = { url: string; requests: { model: string; input: string[] }[]; close(): Promise<void> };

/** `dimensions`: the length of every vector answered (at least CONCEPTS.length + 1; 256 has an HNSW index on pgvector). */
export async function startEmbeddingPeer(options: { dimensions?: number } = {}): Promise<EmbeddingPeer> {
  const dimensions = options.dimensions ?? 0;
  const requests: EmbeddingPeer['requests'] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; input: string[] };
      requests.push(body);
      const tokens = body.input.reduce((sum, text) => sum + text.split(/\s+/).length, 0);
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          object: 'list',
          model: body.model,
          data: body.input.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text, dimensions) })),
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
