import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * Real MCP servers (the SDK's server classes) and misbehaving peers on 127.0.0.1, for tool
 * discovery tests. Each records the requests it received.
 */
export type Peer = {
  url: string;
  /** Method and headers of every HTTP request. */
  requests: { method: string; path: string; headers: IncomingMessage['headers'] }[];
  /** The `cursor` of every tools/list request (undefined for the first page). */
  listCalls: (string | undefined)[];
  /** Bytes written by the 50 MB peer before the client hung up. */
  bytesWritten: number;
  close(): Promise<void>;
};

export const SAMPLE_TOOLS: Tool[] = [
  {
    name: 'search_docs',
    title: 'Search the docs',
    description: 'Full-text search over the documentation.',
    inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'create_issue',
    description: 'Opens an issue.',
    inputSchema: { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } } },
    annotations: { title: 'Create issue', destructiveHint: false },
  },
  { name: 'ping', inputSchema: { type: 'object' } },
];

export type McpPeerOptions = {
  tools?: Tool[];
  /** Tools per tools/list page; the cursor is the index of the next tool. Default: one page. */
  pageSize?: number;
  /** Answers tools/call (an error thrown is answered as a JSON-RPC error). Default: no tools/call. */
  call?: (name: string, args: Record<string, unknown>) => CallToolResult | Promise<CallToolResult>;
};

/** An SDK `Server` answering tools/list, paginated when `pageSize` is set. */
function buildServer(options: McpPeerOptions, listCalls: (string | undefined)[]): Server {
  const server = new Server({ name: 'test-peer', version: '1.0.0' }, { capabilities: { tools: {} } });
  const tools = options.tools ?? SAMPLE_TOOLS;
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const cursor = request.params?.cursor;
    listCalls.push(cursor);
    if (!options.pageSize) return { tools };
    const start = cursor === undefined ? 0 : Number(cursor);
    const end = start + options.pageSize;
    return { tools: tools.slice(start, end), ...(end < tools.length ? { nextCursor: String(end) } : {}) };
  });
  const call = options.call;
  if (call) server.setRequestHandler(CallToolRequestSchema, (request) => call(request.params.name, request.params.arguments ?? {}));
  return server;
}

/** Handles one Streamable HTTP request statelessly: a fresh server and transport per request. */
export function streamableHandler(options: McpPeerOptions, listCalls: (string | undefined)[]) {
  return async (request: IncomingMessage, response: ServerResponse) => {
    const server = buildServer(options, listCalls);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  };
}

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => void, extra: Partial<Peer> = {}): Promise<Peer> {
  const http: HttpServer = createServer();
  const peer: Peer = {
    url: '',
    requests: [],
    listCalls: [],
    bytesWritten: 0,
    async close() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
    ...extra,
  };
  http.on('request', (request: IncomingMessage, response: ServerResponse) => {
    peer.requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers });
    handler(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  peer.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return peer;
}

/**
 * A Streamable HTTP MCP server. With `requiredHeaders`, a request lacking any of them (exact
 * value) is answered 401 as an MCP server does for a missing or wrong credential.
 */
export async function startMcpPeer(options: McpPeerOptions & { requiredHeaders?: Record<string, string> } = {}): Promise<Peer> {
  const listCalls: (string | undefined)[] = [];
  const handle = streamableHandler(options, listCalls);
  return listen(
    (request, response) => {
      const missing = Object.entries(options.requiredHeaders ?? {}).some(([name, value]) => request.headers[name.toLowerCase()] !== value);
      if (missing) {
        response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
        return;
      }
      void handle(request, response);
    },
    { listCalls },
  );
}

/** An MCP server on the HTTP+SSE transport of protocol revision 2024-11-05 (`GET /mcp`, then POSTs). */
export async function startSsePeer(options: McpPeerOptions = {}): Promise<Peer> {
  const listCalls: (string | undefined)[] = [];
  const sessions = new Map<string, SSEServerTransport>();
  return listen(
    (request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      if (request.method === 'GET' && url.pathname === '/mcp') {
        const transport = new SSEServerTransport('/messages', response);
        sessions.set(transport.sessionId, transport);
        response.on('close', () => sessions.delete(transport.sessionId));
        void buildServer(options, listCalls).connect(transport);
        return;
      }
      const transport = sessions.get(url.searchParams.get('sessionId') ?? '');
      if (request.method === 'POST' && url.pathname === '/messages' && transport) {
        void transport.handlePostMessage(request, response);
        return;
      }
      response.writeHead(404).end();
    },
    { listCalls },
  );
}

/** Accepts every request and never answers. */
export function startHangingPeer(): Promise<Peer> {
  return listen(() => {});
}

/** Answers every POST with a 50 MB JSON body, written as fast as the client reads it. */
export async function startHugePeer(): Promise<Peer> {
  const total = 50 * 1024 * 1024;
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const written = { bytes: 0 };
  const peer = await listen((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"jsonrpc":"2.0","id":0,"result":{"padding":"');
    const pump = () => {
      while (written.bytes < total && !response.destroyed) {
        written.bytes += chunk.length;
        if (!response.write(chunk)) {
          response.once('drain', pump);
          return;
        }
      }
      if (!response.destroyed) response.end('"}}');
    };
    pump();
  });
  return Object.defineProperty(peer, 'bytesWritten', { get: () => written.bytes });
}

/** Answers every POST with a body that is not JSON at all, as application/json. */
export function startMalformedPeer(): Promise<Peer> {
  return listen((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":');
    });
  });
}

/** Answers every request with a 307 to `target` (an MCP server elsewhere). */
export function startRedirectingPeer(target: string): Promise<Peer> {
  return listen((request, response) => {
    request.resume();
    response.writeHead(307, { location: target }).end();
  });
}
