import anyTest from 'ava';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { callServerTool } from '../../app/mcp-client/call-tool.ts';
import { AGENTS, ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { oauthTestConfig } from '../mcp-oauth/context.ts';
import { insertOAuthServer } from '../mcp-oauth/fake-servers.ts';
import { startHostilePeer, type HostilePeer } from './hostile-peers.ts';
import { startHangingPeer, startMcpPeer } from './mcp-peers.ts';
import { addServer, owner, peer, type T } from './routes.ts';

// Development mode: the service may call peers on 127.0.0.1; 4 MiB per response as in production.
const base = oauthTestConfig();
// A generous deadline: the test machine is shared; the timeout test sets a short one.
const config = { ...base, mcpClient: { ...base.mcpClient, timeoutMs: 10_000, maxResponseBytes: 4 * 1024 * 1024 } };
const test = withTestApp(anyTest, { app: { config } });

const ids = (serverId: string) => ({ organizationId: ORGANIZATIONS.demoAgency.id, agentId: AGENTS.support.id, serverId });
const call = (t: T, serverId: string, name: string, args: Record<string, unknown> = {}, options = {}) =>
  callServerTool(t.context.t.app.deps, ids(serverId), { name, arguments: args }, options);

async function hostile(t: T, start: Promise<HostilePeer>) {
  const started = await start;
  t.teardown(() => started.close());
  return started;
}

const echo = (name: string, args: Record<string, unknown>) => {
  if (name === 'echo') return { content: [{ type: 'text' as const, text: String(args.text) }], structuredContent: { echoed: args.text } };
  if (name === 'fails') return { content: [{ type: 'text' as const, text: 'the index is down' }], isError: true };
  throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
};

test('a tool is called with the stored headers; its content and structured content come back', async (t) => {
  const auth = await owner(t);
  const mcp = await peer(t, startMcpPeer({ requiredHeaders: { 'x-api-key': 'key-1' }, call: echo }));
  const serverId = await addServer(t, auth, { url: mcp.url, credentials: { 'X-Api-Key': 'key-1' } });
  const outcome = await call(t, serverId, 'echo', { text: 'hello' });
  t.like(outcome, { ok: true, isError: false, content: [{ type: 'text', text: 'hello' }], structuredContent: { echoed: 'hello' } });
  t.true(outcome.ok && outcome.bytes > 0 && outcome.bytes < 200);
});

test("a tool's own failure is ok with isError; an unknown tool is rejected with the server's JSON-RPC code", async (t) => {
  const auth = await owner(t);
  const mcp = await peer(t, startMcpPeer({ call: echo }));
  const serverId = await addServer(t, auth, { url: mcp.url });
  t.like(await call(t, serverId, 'fails'), { ok: true, isError: true, content: [{ type: 'text', text: 'the index is down' }] });
  const unknown = await call(t, serverId, 'nope');
  t.like(unknown, { ok: false, failure: 'rejected', rpcCode: ErrorCode.InvalidParams });
  t.true(!unknown.ok && unknown.message.includes('Unknown tool: nope'));
});

test('a result larger than the byte cap is refused as too_large, at the default cap and at a smaller one', async (t) => {
  const auth = await owner(t);
  const huge = JSON.stringify({ content: [{ type: 'text', text: 'x'.repeat(3 * 1024 * 1024) }] });
  const mcp = await hostile(t, startHostilePeer({ callResult: huge }));
  const serverId = await addServer(t, auth, { url: mcp.url });
  // 3 MiB passes the 4 MiB response cap; the call's own budget (1 MiB by default) refuses it.
  t.like(await call(t, serverId, 'anything'), { ok: false, failure: 'too_large', message: 'the session exceeded 1048576 bytes' });
  t.like(await call(t, serverId, 'anything', {}, { maxResultBytes: 64 * 1024 }), {
    ok: false,
    failure: 'too_large',
    message: 'the session exceeded 65536 bytes',
  });
  const small = await hostile(t, startHostilePeer({ callResult: JSON.stringify({ content: [{ type: 'text', text: 'fine' }] }) }));
  const smallId = await addServer(t, auth, { url: small.url });
  t.like(await call(t, smallId, 'anything', {}, { maxResultBytes: 64 * 1024 }), { ok: true, content: [{ type: 'text', text: 'fine' }] });
});

test('a refused key is unauthorized, a silent server times out within the deadline, an unknown server is not_found', async (t) => {
  const auth = await owner(t);
  const keyed = await peer(t, startMcpPeer({ requiredHeaders: { 'x-api-key': 'right' }, call: echo }));
  const keyedId = await addServer(t, auth, { url: keyed.url, credentials: { 'X-Api-Key': 'wrong' } });
  t.like(await call(t, keyedId, 'echo', { text: 'a' }), { ok: false, failure: 'unauthorized', message: 'the server answered 401' });

  const silent = await peer(t, startHangingPeer());
  const silentId = await addServer(t, auth, { url: silent.url });
  const hurried = t.context.t.rebuild({ config: { ...config, mcpClient: { ...config.mcpClient, timeoutMs: 500 } } });
  t.like(await callServerTool(hurried.deps, ids(silentId), { name: 'echo' }), { ok: false, failure: 'timeout' });

  t.like(await call(t, '01900000-0000-7000-8000-000000000000', 'echo'), { ok: false, failure: 'not_found' });
});

test("the caller's signal ends a call at once; an OAuth server never authorized is unauthorized with its code", async (t) => {
  const auth = await owner(t);
  const silent = await peer(t, startHangingPeer());
  const silentId = await addServer(t, auth, { url: silent.url });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  t.like(await call(t, silentId, 'echo', {}, { signal: controller.signal }), { ok: false, failure: 'aborted' });

  const oauthId = await insertOAuthServer(t.context.t.db.pool, { ...ids(''), url: 'http://127.0.0.1:9/mcp' });
  t.like(await call(t, oauthId, 'echo'), { ok: false, failure: 'unauthorized', errorCode: 'MCP.AUTHORIZATION_REQUIRED' });
});
