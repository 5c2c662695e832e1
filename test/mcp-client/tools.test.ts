import anyTest from 'ava';
import { testConfig, withTestApp } from '../helpers/app.ts';
import { oauthTestConfig } from '../mcp-oauth/context.ts';
import {
  SAMPLE_TOOLS,
  startHangingPeer,
  startHugePeer,
  startMalformedPeer,
  startMcpPeer,
  startRedirectingPeer,
  startSsePeer,
} from './mcp-peers.ts';
import { addServer, agent, detailOf, owner, peer, serversPath, toolsOf } from './routes.ts';

// Development mode: the service may call peers on 127.0.0.1 (the URL policy allows loopback there).
const config = { ...oauthTestConfig(), mcpClient: { timeoutMs: 5_000, maxResponseBytes: 1024 * 1024, toolsCacheTtlMs: 60_000 } };
const test = withTestApp(anyTest, { app: { config } });

test.serial('the tools of a server without auth are listed with their schema, annotations and the agent permission', async (t) => {
  const auth = await owner(t);
  const mcp = await peer(t, startMcpPeer());
  const serverId = await addServer(t, auth, { url: mcp.url });
  t.like(await detailOf(t, auth, serverId), { status: 'unknown', lastCheckedAt: null });
  await t.context.t
    .http()
    .put(`/api/ai/agents/${agent}/tools`)
    .set('authorization', auth)
    .send({ tools: [{ toolName: 'create_issue', permissionStatus: 'needs_approval', providerKey: `mcp:${serverId}` }] })
    .expect(200);

  // The discovery's clock stands still: the server's check time is read exactly.
  const checkedAt = new Date();
  const response = await toolsOf(t, auth, serverId, '', t.context.t.rebuild({ config, clock: () => checkedAt })).expect(200);
  t.deepEqual(response.body, {
    serverId,
    tools: [
      {
        name: 'search_docs',
        title: 'Search the docs',
        description: 'Full-text search over the documentation.',
        inputSchema: SAMPLE_TOOLS[0]!.inputSchema,
        annotations: { readOnlyHint: true },
        permissionStatus: null,
      },
      {
        name: 'create_issue',
        title: 'Create issue',
        description: 'Opens an issue.',
        inputSchema: SAMPLE_TOOLS[1]!.inputSchema,
        annotations: { title: 'Create issue', destructiveHint: false },
        permissionStatus: 'needs_approval',
      },
      { name: 'ping', title: null, description: null, inputSchema: { type: 'object' }, annotations: null, permissionStatus: null },
    ],
  });
  const detail = await detailOf(t, auth, serverId);
  t.is(detail.status, 'connected');
  t.is(Date.parse(detail.lastCheckedAt!), checkedAt.getTime());
});

test.serial('tools are cached briefly; refresh=true asks the server again, and permissions are always current', async (t) => {
  const auth = await owner(t);
  const mcp = await peer(t, startMcpPeer());
  const serverId = await addServer(t, auth, { url: mcp.url });
  await toolsOf(t, auth, serverId).expect(200);
  await t.context.t
    .http()
    .put(`/api/ai/agents/${agent}/tools`)
    .set('authorization', auth)
    .send({ tools: [{ toolName: 'ping', permissionStatus: 'blocked', providerKey: `mcp:${serverId}` }] })
    .expect(200);
  const cached = await toolsOf(t, auth, serverId).expect(200);
  t.is(mcp.listCalls.length, 1);
  t.is(cached.body.tools.find((tool: { name: string }) => tool.name === 'ping').permissionStatus, 'blocked');
  await toolsOf(t, auth, serverId, '?refresh=true').expect(200);
  t.is(mcp.listCalls.length, 2);
  const bad = await toolsOf(t, auth, serverId, '?refresh=yes').expect(400);
  t.is(bad.body.message, 'Validation failed');
});

test('three pages of tools are followed through their cursors', async (t) => {
  const auth = await owner(t);
  const tools = Array.from({ length: 7 }, (_, i) => ({ name: `tool_${i}`, inputSchema: { type: 'object' as const } }));
  const mcp = await peer(t, startMcpPeer({ tools, pageSize: 3 }));
  const serverId = await addServer(t, auth, { url: mcp.url });
  const response = await toolsOf(t, auth, serverId).expect(200);
  t.deepEqual(
    response.body.tools.map((tool: { name: string }) => tool.name),
    tools.map((tool) => tool.name),
  );
  t.deepEqual(mcp.listCalls, [undefined, '3', '6']);
});

test('static headers are sent on every request; a refused key answers MCP.SERVER_UNAUTHORIZED and needs_authorization', async (t) => {
  const auth = await owner(t);
  const mcp = await peer(t, startMcpPeer({ requiredHeaders: { authorization: 'Bearer key-123', 'x-team': '7' } }));
  const serverId = await addServer(t, auth, { url: mcp.url, credentials: { Authorization: 'Bearer key-123', 'X-Team': '7' } });
  const response = await toolsOf(t, auth, serverId).expect(200);
  t.is(response.body.tools.length, 3);
  t.true(mcp.requests.every((request) => request.headers.authorization === 'Bearer key-123'));

  await t.context.t
    .http()
    .patch(`${serversPath}/${serverId}`)
    .set('authorization', auth)
    .send({ credentials: { Authorization: 'Bearer stale' } })
    .expect(200);
  const refused = await toolsOf(t, auth, serverId).expect(502);
  t.is(refused.body.errorCode, 'MCP.SERVER_UNAUTHORIZED');
  t.like(refused.body.metadata, { status: 'needs_authorization' });
  t.false(JSON.stringify(refused.body).includes('stale'));
  t.is((await detailOf(t, auth, serverId)).status, 'needs_authorization');
});

test('a server that never answers is a 504 MCP.SERVER_TIMEOUT within the deadline and is marked unreachable', async (t) => {
  const app = t.context.t.rebuild({ config: { ...config, mcpClient: { ...config.mcpClient, timeoutMs: 500 } } });
  const auth = await owner(t);
  const mcp = await peer(t, startHangingPeer());
  const serverId = await addServer(t, auth, { url: mcp.url });
  const { default: request } = await import('supertest');
  const response = await request(app.callback()).get(`${serversPath}/${serverId}/tools`).set('authorization', auth).expect(504);
  t.like(response.body, { statusCode: 504, errorCode: 'MCP.SERVER_TIMEOUT' });
  t.deepEqual(Object.keys(response.body.message).sort(), ['en', 'es']);
  t.is((await detailOf(t, auth, serverId)).status, 'unreachable');
});

test('a server that answers 50 MB is cut off at the response cap with 502 MCP.SERVER_RESPONSE_TOO_LARGE', async (t) => {
  const auth = await owner(t);
  const mcp = await peer(t, startHugePeer());
  const serverId = await addServer(t, auth, { url: mcp.url });
  const response = await toolsOf(t, auth, serverId).expect(502);
  t.is(response.body.errorCode, 'MCP.SERVER_RESPONSE_TOO_LARGE');
  t.like(response.body.metadata, { maxBytes: 1024 * 1024 });
  t.true(mcp.bytesWritten < 50 * 1024 * 1024, `the peer wrote ${mcp.bytesWritten} bytes`);
});

test('a server that sends malformed JSON-RPC is a 502 MCP.SERVER_PROTOCOL_ERROR', async (t) => {
  const auth = await owner(t);
  const mcp = await peer(t, startMalformedPeer());
  const serverId = await addServer(t, auth, { url: mcp.url });
  const response = await toolsOf(t, auth, serverId).expect(502);
  t.is(response.body.errorCode, 'MCP.SERVER_PROTOCOL_ERROR');
  t.is((await detailOf(t, auth, serverId)).status, 'unreachable');
});

test('a server nobody listens on is a 502 MCP.SERVER_UNREACHABLE', async (t) => {
  const auth = await owner(t);
  const mcp = await startMcpPeer();
  await mcp.close();
  const serverId = await addServer(t, auth, { url: mcp.url });
  const response = await toolsOf(t, auth, serverId).expect(502);
  t.is(response.body.errorCode, 'MCP.SERVER_UNREACHABLE');
});

test('the URL policy is applied when connecting: loopback is refused outside development', async (t) => {
  const auth = await owner(t);
  const mcp = await peer(t, startMcpPeer());
  const serverId = await addServer(t, auth, { url: mcp.url });
  const strict = t.context.t.rebuild({ config: { ...config, nodeEnv: 'test', mcpOAuth: testConfig().mcpOAuth } });
  const { default: request } = await import('supertest');
  const response = await request(strict.callback()).get(`${serversPath}/${serverId}/tools`).set('authorization', auth).expect(502);
  t.is(response.body.errorCode, 'MCP.SERVER_UNREACHABLE');
  t.deepEqual(mcp.requests, []);
});

test('a redirect is not followed: 502 MCP.SERVER_UNREACHABLE and the target never sees a request', async (t) => {
  const auth = await owner(t);
  const target = await peer(t, startMcpPeer());
  const mcp = await peer(t, startRedirectingPeer(target.url));
  const serverId = await addServer(t, auth, { url: mcp.url, credentials: { Authorization: 'Bearer must-not-travel' } });
  const response = await toolsOf(t, auth, serverId).expect(502);
  t.is(response.body.errorCode, 'MCP.SERVER_UNREACHABLE');
  t.deepEqual(target.requests, []);
});

test('a server of the sse transport is listed over HTTP+SSE', async (t) => {
  const auth = await owner(t);
  const mcp = await peer(t, startSsePeer({ pageSize: 2 }));
  const serverId = await addServer(t, auth, { url: mcp.url, transportType: 'sse' });
  const response = await toolsOf(t, auth, serverId).expect(200);
  t.deepEqual(
    response.body.tools.map((tool: { name: string }) => tool.name),
    ['search_docs', 'create_issue', 'ping'],
  );
  t.true(mcp.requests.some((request) => request.method === 'GET' && request.path === '/mcp'));
});

test("another agency's server is a 404 and a member without the read policy a 403", async (t) => {
  const auth = await owner(t);
  const mcp = await peer(t, startMcpPeer());
  const serverId = await addServer(t, auth, { url: mcp.url });
  const other = `Bearer ${await t.context.t.login('owner@other.test')}`;
  const foreign = await toolsOf(t, other, serverId).expect(404);
  t.is(foreign.body.errorCode, 'AI.AGENT_NOT_FOUND');
  const member = `Bearer ${await t.context.t.login('member@demo.test')}`;
  await toolsOf(t, member, serverId).expect(403);
  t.deepEqual(mcp.requests, []);
});
