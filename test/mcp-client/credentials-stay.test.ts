import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';
import { oauthTestConfig } from '../mcp-oauth/context.ts';
import { startMcpPeer, type Peer } from './mcp-peers.ts';
import { addServer, owner, peer, serversPath, toolsOf, type T } from './routes.ts';

// Development mode: the service may call peers on 127.0.0.1.
const test = withTestApp(anyTest, { app: { config: oauthTestConfig() } });

const SECRET = 'vendor-secret-7f3a';
const edit = (t: T, auth: string, serverId: string, body: object) =>
  t.context.t.http().patch(`${serversPath}/${serverId}`).set('authorization', auth).send(body);
const sawSecret = (mcp: Peer, secret: string) => mcp.requests.some((request) => JSON.stringify(request.headers).includes(secret));

test('moving a server with stored credentials to another origin drops them: the new host never sees the old secret', async (t) => {
  const auth = await owner(t);
  const vendor = await peer(t, startMcpPeer({ requiredHeaders: { 'x-api-key': SECRET } }));
  const other = await peer(t, startMcpPeer());
  const serverId = await addServer(t, auth, { url: vendor.url, credentials: { 'X-Api-Key': SECRET } });
  await toolsOf(t, auth, serverId).expect(200);
  t.true(sawSecret(vendor, SECRET));

  const moved = await edit(t, auth, serverId, { url: other.url }).expect(200);
  t.like(moved.body, { url: other.url, authType: 'none', hasCredentials: false, status: 'unknown' });
  await toolsOf(t, auth, serverId).expect(200);
  t.true(other.requests.length > 0);
  t.false(sawSecret(other, SECRET), 'the new host received the old secret');
  t.true(other.requests.every((request) => request.headers['x-api-key'] === undefined));
});

test('a new URL on the same origin keeps the credentials, and a move that gives new credentials sends only those', async (t) => {
  const auth = await owner(t);
  const vendor = await peer(t, startMcpPeer({ requiredHeaders: { 'x-api-key': SECRET } }));
  const serverId = await addServer(t, auth, { url: vendor.url, credentials: { 'X-Api-Key': SECRET } });
  const samePlace = await edit(t, auth, serverId, { url: `${vendor.url}/v2` }).expect(200);
  t.like(samePlace.body, { authType: 'static_headers', hasCredentials: true });
  await toolsOf(t, auth, serverId).expect(200);
  t.true(vendor.requests.at(-1)!.path.endsWith('/mcp/v2'));

  const other = await peer(t, startMcpPeer({ requiredHeaders: { 'x-api-key': 'key-for-other' } }));
  const moved = await edit(t, auth, serverId, { url: other.url, credentials: { 'X-Api-Key': 'key-for-other' } }).expect(200);
  t.like(moved.body, { authType: 'static_headers', hasCredentials: true });
  await toolsOf(t, auth, serverId).expect(200);
  t.false(sawSecret(other, SECRET));
});
