import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * A real MCP server (the SDK's `Server` over stateless Streamable HTTP) on 127.0.0.1 whose tools
 * can be called: `answer` gives each `tools/call` result (it may wait on the call's abort
 * signal, or throw to make a JSON-RPC error). Records every call and whether it was cancelled.
 */
export type ToolCallRecord = { name: string; arguments: unknown; aborted: boolean };

export type McpToolPeer = {
  url: string;
  calls: ToolCallRecord[];
  close(): Promise<void>;
};

export const CHAT_MCP_TOOLS: Tool[] = [
  {
    name: 'search_docs',
    description: 'Full-text search over the documentation.',
    inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
  {
    name: 'create_issue',
    description: 'Opens an issue.',
    inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
  },
  { name: 'wipe_disk', description: 'Blocked for every agent.', inputSchema: { type: 'object' } },
];

export type ToolAnswer = (name: string, input: Record<string, unknown>, signal: AbortSignal) => Promise<CallToolResult> | CallToolResult;

export const echoAnswer: ToolAnswer = (name, input) => ({ content: [{ type: 'text', text: `${name} ran with ${JSON.stringify(input)}` }] });

export async function startMcpToolPeer(options: { tools?: Tool[]; answer?: ToolAnswer } = {}): Promise<McpToolPeer> {
  const calls: ToolCallRecord[] = [];
  const tools = options.tools ?? CHAT_MCP_TOOLS;
  const answer = options.answer ?? echoAnswer;
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const server = new Server({ name: 'chat-test-peer', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (call, extra) => {
      const record: ToolCallRecord = { name: call.params.name, arguments: call.params.arguments, aborted: false };
      calls.push(record);
      extra.signal.addEventListener('abort', () => (record.aborted = true));
      response.on('close', () => {
        if (!response.writableFinished) record.aborted = true;
      });
      return answer(call.params.name, call.params.arguments ?? {}, extra.signal);
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  };
  const http = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    calls,
    async close() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
