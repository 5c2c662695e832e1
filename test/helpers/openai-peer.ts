import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TITLE_PROMPT } from '../../app/chat/titles.ts';

/**
 * A scripted OpenAI-compatible Chat Completions server on 127.0.0.1 for the chat stream's tests
 * and bench: it streams `chat.completion.chunk` events (text deltas, tool-call deltas, a final
 * usage chunk with `prompt_tokens_details.cached_tokens`), or one `chat.completion` when the
 * request does not ask for a stream, and can misbehave on purpose (an HTTP
 * status, a stream that hangs, malformed JSON, a connection cut mid-stream).
 */
export type Usage = { prompt: number; completion: number; cached?: number };

export type Reply =
  | { kind: 'text'; text: string; usage?: Usage; pieces?: number }
  /** One tool call (id `call_1` unless given); `alongside` are further calls in the same step, as parallel tool calls. */
  | { kind: 'tool-call'; toolName: string; input: unknown; usage?: Usage; id?: string; alongside?: ToolCall[] }
  | { kind: 'status'; status: number; body?: string }
  | { kind: 'hang' }
  | { kind: 'hang-after-first-chunk' }
  | { kind: 'malformed' }
  | { kind: 'disconnect' }
  | { kind: 'endless' }
  /** Endless chunks without any text (a 60 KB `id` each): what only the response byte cap stops. */
  | { kind: 'endless-padding' }
  /** `bytes` of text in 64 KiB deltas, written as the client reads them, then a normal end (the 135 MB scenario of issue 37). */
  | { kind: 'huge'; bytes: number }
  /**
   * A slow provider: each character of `text` in its own chunk, one every `everyMs`, then the usual
   * end; with `forever`, after the text one byte every `everyMs` (an SSE comment line, which
   * keeps an idle timeout at bay) until the client leaves. With `holdAfter`, the drip stops after
   * that many characters until `release` settles (a test's own moment, not a race with the clock).
   */
  | { kind: 'drip'; text: string; everyMs: number; usage?: Usage; forever?: boolean; holdAfter?: number; release?: Promise<void> };

export type ToolCall = { toolName: string; input: unknown; id: string };

export type ReceivedRequest = { body: ChatRequest; headers: IncomingMessage['headers'] };
export type ChatRequest = {
  model: string;
  messages: { role: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string; parameters: unknown } }[];
  stream?: boolean;
  stream_options?: unknown;
  temperature?: number;
  max_tokens?: number;
};

export type OpenAiPeer = {
  /** Base URL, ending `/v1`. */
  url: string;
  requests: ReceivedRequest[];
  /** The title calls answered apart from the script. */
  titleRequests: ReceivedRequest[];
  /** Resolves with each request's socket closing: `finished` false when the client hung up first. */
  closes: Promise<{ finished: boolean }>[];
  close(): Promise<void>;
};

/** What the peer answers a title call with, unless the script answers titles itself. */
export const DEFAULT_TITLE = 'A titled conversation';

/**
 * `script` answers the n-th request (0-based) given its body, now or later; it is called once per
 * request. Title calls (app/chat/titles.ts) are answered `DEFAULT_TITLE` and kept in
 * `titleRequests`, unless `titles: 'script'` hands them to the script too.
 */
export async function startOpenAiPeer(
  script: (request: ChatRequest, index: number) => Reply | Promise<Reply>,
  options: { titles?: 'answer' | 'script' } = {},
): Promise<OpenAiPeer> {
  const peer: OpenAiPeer = { url: '', requests: [], titleRequests: [], closes: [], close: async () => {} };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
      // A new conversation's title call runs beside its first turn: answered here, apart from the script's requests.
      if (options.titles !== 'script' && body.messages[0]?.content === TITLE_PROMPT) {
        peer.titleRequests.push({ body, headers: request.headers });
        answer({ kind: 'text', text: DEFAULT_TITLE, usage: { prompt: 40, completion: 3 } }, body, response);
        return;
      }
      const index = peer.requests.length;
      peer.requests.push({ body, headers: request.headers });
      peer.closes.push(new Promise((resolve) => response.on('close', () => resolve({ finished: response.writableFinished }))));
      // A script may answer later (a promise): the reply waits for what the test waits on.
      void Promise.resolve(script(body, index)).then((reply) => answer(reply, body, response));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  peer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  peer.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return peer;
}

const chunk = (model: string, delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-test',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model,
  choices: [{ index: 0, delta, finish_reason: finish }],
});

const usageChunk = (model: string, usage: Usage) => ({
  id: 'chatcmpl-test',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model,
  choices: [],
  usage: {
    prompt_tokens: usage.prompt,
    completion_tokens: usage.completion,
    total_tokens: usage.prompt + usage.completion,
    prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
  },
});

/** The event lines of a well-formed reply. */
export function eventsOf(reply: Extract<Reply, { kind: 'text' | 'tool-call' }>, model: string): unknown[] {
  const usage = reply.usage ?? { prompt: 10, completion: 5 };
  if (reply.kind === 'text') {
    const pieces = Math.max(1, reply.pieces ?? 3);
    const size = Math.ceil(reply.text.length / pieces);
    const deltas = Array.from({ length: pieces }, (_, i) => reply.text.slice(i * size, (i + 1) * size)).filter(Boolean);
    return [
      chunk(model, { role: 'assistant', content: '' }),
      ...deltas.map((content) => chunk(model, { content })),
      chunk(model, {}, 'stop'),
      usageChunk(model, usage),
    ];
  }
  const calls = toolCallsOf(reply);
  return [
    ...calls.flatMap(({ toolName, input, id }, index) => {
      const args = JSON.stringify(input);
      const half = Math.ceil(args.length / 2);
      return [
        chunk(model, {
          ...(index === 0 ? { role: 'assistant' } : {}),
          tool_calls: [{ index, id, type: 'function', function: { name: toolName, arguments: '' } }],
        }),
        chunk(model, { tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }),
        chunk(model, { tool_calls: [{ index, function: { arguments: args.slice(half) } }] }),
      ];
    }),
    chunk(model, {}, 'tool_calls'),
    usageChunk(model, usage),
  ];
}

const toolCallsOf = (reply: Extract<Reply, { kind: 'tool-call' }>): ToolCall[] => [
  { toolName: reply.toolName, input: reply.input, id: reply.id ?? 'call_1' },
  ...(reply.alongside ?? []),
];

/** A well-formed reply as one `chat.completion` (a request without `stream: true`, as `generateText` sends). */
export function completionOf(reply: Extract<Reply, { kind: 'text' | 'tool-call' }>, model: string): unknown {
  const usage = (usageChunk(model, reply.usage ?? { prompt: 10, completion: 5 }) as { usage: unknown }).usage;
  const message =
    reply.kind === 'text'
      ? { role: 'assistant', content: reply.text }
      : {
          role: 'assistant',
          content: null,
          tool_calls: toolCallsOf(reply).map(({ toolName, input, id }) => ({
            id,
            type: 'function',
            function: { name: toolName, arguments: JSON.stringify(input) },
          })),
        };
  const finish = reply.kind === 'text' ? 'stop' : 'tool_calls';
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message, finish_reason: finish }],
    usage,
  };
}

function answer(reply: Reply, body: ChatRequest, response: ServerResponse) {
  const sse = () => response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: unknown) => response.write(`data: ${JSON.stringify(event)}\n\n`);
  switch (reply.kind) {
    case 'status':
      response
        .writeHead(reply.status, { 'content-type': 'application/json' })
        .end(reply.body ?? JSON.stringify({ error: { message: 'refused' } }));
      return;
    case 'hang':
      return;
    case 'hang-after-first-chunk':
      sse();
      send(chunk(body.model, { role: 'assistant', content: 'Hel' }));
      return;
    case 'malformed':
      sse();
      response.end('data: {"id": this is not json\n\n');
      return;
    case 'disconnect':
      sse();
      send(chunk(body.model, { role: 'assistant', content: 'Partial' }));
      response.socket?.destroy();
      return;
    case 'endless': {
      sse();
      const timer = setInterval(() => send(chunk(body.model, { content: 'x'.repeat(60_000) })), 1);
      response.on('close', () => clearInterval(timer));
      return;
    }
    case 'endless-padding': {
      sse();
      const padded = { ...chunk(body.model, {}), id: `chatcmpl-${'p'.repeat(60_000)}` };
      const timer = setInterval(() => send(padded), 1);
      response.on('close', () => clearInterval(timer));
      return;
    }
    case 'huge': {
      sse();
      const delta = 'y'.repeat(64 * 1024);
      let left = reply.bytes;
      const more = () => {
        while (left > 0 && !response.destroyed) {
          const content = delta.slice(0, Math.min(left, delta.length));
          left -= content.length;
          if (!response.write(`data: ${JSON.stringify(chunk(body.model, { content }))}\n\n`)) return void response.once('drain', more);
        }
        if (response.destroyed) return;
        send(chunk(body.model, {}, 'stop'));
        send(usageChunk(body.model, { prompt: 10, completion: Math.ceil(reply.bytes / 4) }));
        response.end('data: [DONE]\n\n');
      };
      more();
      return;
    }
    case 'drip': {
      sse();
      send(chunk(body.model, { role: 'assistant', content: '' }));
      const characters = [...reply.text];
      let sent = 0;
      let released = reply.release === undefined;
      void reply.release?.then(() => (released = true));
      const timer = setInterval(() => {
        if (!released && sent === reply.holdAfter) return;
        if (sent < characters.length) {
          send(chunk(body.model, { content: characters[sent++] }));
        } else if (reply.forever) {
          response.write(sent++ % 2 === 0 ? ':' : '\n');
        } else {
          clearInterval(timer);
          send(chunk(body.model, {}, 'stop'));
          send(usageChunk(body.model, reply.usage ?? { prompt: 10, completion: characters.length }));
          response.end('data: [DONE]\n\n');
        }
      }, reply.everyMs);
      response.on('close', () => clearInterval(timer));
      return;
    }
    default:
      if (body.stream !== true) {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completionOf(reply, body.model)));
        return;
      }
      sse();
      for (const event of eventsOf(reply, body.model)) send(event);
      response.end('data: [DONE]\n\n');
  }
}
