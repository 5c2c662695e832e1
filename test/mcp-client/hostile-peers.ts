import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Hand-written MCP servers that misbehave in ways the SDK's server classes refuse to: raw
 * Streamable HTTP (one JSON answer per POST, no session), on 127.0.0.1. `tools/list` pages
 * and `tools/call` results are serialised once, up front, so the peer itself costs the event
 * loop (shared with the service under test) nothing but writing bytes.
 */
export type HostilePeer = {
  url: string;
  /** The `cursor` of every tools/list request (undefined for the first page). */
  listCalls: (string | undefined)[];
  /** Body bytes written to the client. */
  bytesWritten: number;
  close(): Promise<void>;
};

export type HostileOptions = {
  /** The JSON of the `result` of tools/list for a cursor (undefined: the first page). */
  listPage?: (cursor: string | undefined) => string;
  /** The JSON of the `result` of tools/call. */
  callResult?: string;
};

const INITIALIZE_RESULT = JSON.stringify({
  protocolVersion: '2025-06-18',
  capabilities: { tools: {} },
  serverInfo: { name: 'hostile', version: '1.0.0' },
});

export async function startHostilePeer(options: HostileOptions): Promise<HostilePeer> {
  const peer: HostilePeer = { url: '', listCalls: [], bytesWritten: 0, close: async () => {} };
  const answer = (response: ServerResponse, id: unknown, result: string) => {
    const body = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body);
    peer.bytesWritten += Buffer.byteLength(body);
  };
  const handle = (request: IncomingMessage, response: ServerResponse, raw: string) => {
    if (request.method !== 'POST') return void response.writeHead(405).end();
    const message = JSON.parse(raw) as { id?: unknown; method: string; params?: { cursor?: string } };
    if (message.id === undefined) return void response.writeHead(202).end();
    if (message.method === 'initialize') return answer(response, message.id, INITIALIZE_RESULT);
    if (message.method === 'tools/list' && options.listPage) {
      peer.listCalls.push(message.params?.cursor);
      return answer(response, message.id, options.listPage(message.params?.cursor));
    }
    if (message.method === 'tools/call' && options.callResult) return answer(response, message.id, options.callResult);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }));
  };
  const http = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handle(request, response, Buffer.concat(chunks).toString()));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  peer.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  peer.close = async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  };
  return peer;
}

/**
 * The schema bomb: one tool whose `outputSchema` has `width` properties, each `$ref`-ing one
 * `$defs` entry of `width` properties (about 13 KB at 200). Compiling it with AJV takes seconds
 * of synchronous CPU; reading it as JSON takes microseconds.
 */
export function schemaBombPage(width = 200): string {
  const entry = { type: 'object', properties: Object.fromEntries(Array.from({ length: width }, (_, i) => [`f${i}`, { type: 'string' }])) };
  const outputSchema = {
    type: 'object',
    $defs: { entry },
    properties: Object.fromEntries(Array.from({ length: width }, (_, i) => [`p${i}`, { $ref: '#/$defs/entry' }])),
  };
  return JSON.stringify({ tools: [{ name: 'bomb', description: 'Looks harmless.', inputSchema: { type: 'object' }, outputSchema }] });
}

/**
 * One page of `perPage` tools whose descriptions are `descriptionChars` long, with a cursor to
 * the next page until `pages` pages: at 100 x 20 x 190,000 a listing of about 363 MB.
 */
export function pagedListing(options: { pages: number; perPage: number; descriptionChars: number }) {
  const description = 'x'.repeat(options.descriptionChars);
  const pageOf = (page: number) =>
    JSON.stringify({
      tools: Array.from({ length: options.perPage }, (_, i) => ({
        name: `tool_${page}_${i}`,
        description,
        inputSchema: { type: 'object' },
      })),
      ...(page + 1 < options.pages ? { nextCursor: String(page + 1) } : {}),
    });
  const cache = new Map<number, string>();
  return (cursor: string | undefined) => {
    const page = cursor === undefined ? 0 : Number(cursor);
    // Pages differ only in tool names; keep at most one serialised page alive at a time.
    if (!cache.has(page)) {
      cache.clear();
      cache.set(page, pageOf(page));
    }
    return cache.get(page)!;
  };
}
