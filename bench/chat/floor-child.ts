/**
 * The floors of bench/chat, in a process of their own like the service: two proxies in front of
 * the scripted provider with none of the service's work (no token, no database, no tools):
 * - `POST /bare`: node:http, one `fetch` to the provider, its body piped back as it comes;
 * - `POST /sdk`: the AI SDK alone, `streamText` over `@ai-sdk/openai-compatible` and its UI
 *   message stream as server-sent events (what the chat route answers).
 * Reads `BENCH_GATEWAY_URL`; reports its port over IPC; ends on `stop`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { JsonToSseTransformStream, streamText, UI_MESSAGE_STREAM_HEADERS } from 'ai';

const gatewayUrl = process.env.BENCH_GATEWAY_URL!;
const MODEL_ID = 'openai/gpt-4o-mini';
const model = createOpenAICompatible({ name: 'gateway', baseURL: gatewayUrl, apiKey: 'sk-bench', includeUsage: true }).chatModel(MODEL_ID);
const piped = (stream: ReadableStream<Uint8Array>) => Readable.fromWeb(stream as NodeReadableStream<Uint8Array>);

const server = createServer(async (request, response) => {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  const { text } = JSON.parse(Buffer.concat(parts).toString('utf8')) as { text: string };
  const messages = [{ role: 'user' as const, content: text }];
  if (request.url === '/bare') {
    const upstream = await fetch(`${gatewayUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-bench', 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL_ID, messages, stream: true, stream_options: { include_usage: true } }),
    });
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    piped(upstream.body!).pipe(response);
    return;
  }
  const result = streamText({ model, messages, maxRetries: 0 });
  response.writeHead(200, UI_MESSAGE_STREAM_HEADERS);
  piped(result.toUIMessageStream().pipeThrough(new JsonToSseTransformStream()).pipeThrough(new TextEncoderStream())).pipe(response);
});
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on('message', (message) => {
  if (message === 'stop') server.close(() => process.exit(0));
});
