import { createServer, type AddressInfo, type Socket } from 'node:net';
import anyTest, { type ExecutionContext } from 'ava';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { seedCatalog } from '../../seeds/mcp-catalog.ts';
import { checkOutboundUrl, checkUrlTextToSave, UrlRefusedError, type HostLookup } from '../../app/net/url-policy.ts';
import { withTestApp, type TestContext } from '../helpers/app.ts';

const test = withTestApp(anyTest);

const production = { allowLoopbackHttp: false };
const development = { allowLoopbackHttp: true };

/** A TCP listener on loopback that counts the connections it is offered (an internal service). */
async function internalService(t: ExecutionContext<TestContext>) {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, connections: () => sockets.length };
}

/** The answer of a save with what differs by design (id, the URL given, times) taken out. */
function comparable(response: { status: number; body: Record<string, unknown> }) {
  const { id, url, createdAt, updatedAt, ...rest } = response.body;
  return { status: response.status, body: rest, has: [typeof id, typeof url, typeof createdAt, typeof updatedAt] };
}

test('saving answers alike for a name that resolves to a private address and one that does not resolve', async (t) => {
  const auth = `Bearer ${await t.context.t.login('owner@demo.test')}`;
  const internal = await internalService(t);
  const path = `/api/ai/agents/${AGENTS.research.id}/mcp-servers`;
  const save = (url: string) =>
    t.context.t.http().post(path).set('authorization', auth).send({ name: 'Internal', url, transportType: 'http' });
  // `localhost` resolves to 127.0.0.1 (refused outside development); `.invalid` never resolves (RFC 6761).
  const privateName = await save(`https://localhost:${internal.port}/mcp`);
  const unresolvable = await save(`https://no-such-host.invalid:${internal.port}/mcp`);
  t.is(privateName.status, 201);
  t.deepEqual(comparable(privateName), comparable(unresolvable));

  const edit = (serverId: string, url: string) => t.context.t.http().patch(`${path}/${serverId}`).set('authorization', auth).send({ url });
  const editedPrivate = await edit(unresolvable.body.id as string, `https://localhost:${internal.port}/other`);
  const editedUnresolvable = await edit(privateName.body.id as string, `https://no-such-host.invalid:${internal.port}/other`);
  t.is(editedPrivate.status, 200);
  t.deepEqual(comparable(editedPrivate), comparable(editedUnresolvable));

  // The address is judged at the connection: the private one is refused and never connected to.
  const tools = await t.context.t.http().get(`${path}/${unresolvable.body.id}/tools`).set('authorization', auth);
  t.is(tools.status, 502);
  t.is(tools.body.errorCode, 'MCP.SERVER_UNREACHABLE');
  t.is(internal.connections(), 0);
});

test('what the URL alone shows is refused at save time: 400 at url', async (t) => {
  const auth = `Bearer ${await t.context.t.login('owner@demo.test')}`;
  const cases: [string, RegExp][] = [
    ['ftp://mcp.example.com/', /https/],
    ['https://user:secret@mcp.example.com/', /user name or password/],
    ['https://127.0.0.1/mcp', /public address/],
    ['https://10.1.2.3/mcp', /public address/],
    ['https://[::1]/mcp', /public address/],
    ['https://[fe80::1]/mcp', /public address/],
    ['https://169.254.169.254/latest/meta-data', /public address/],
    ['https://0x7f.1/mcp', /public address/],
    ['https://metadata.google.internal/computeMetadata/v1', /metadata/],
    ['https://METADATA.goog./', /metadata/],
    ['http://mcp.example.com/mcp', /https/],
    ['not a url', /absolute/],
  ];
  for (const [url, message] of cases) {
    t.throws(() => checkUrlTextToSave(url, production), { instanceOf: UrlRefusedError, message }, url);
    const response = await t.context.t
      .http()
      .post(`/api/ai/agents/${AGENTS.research.id}/mcp-servers`)
      .set('authorization', auth)
      .send({ name: 'Refused', url, transportType: 'http' });
    t.is(response.status, 400, url);
    t.deepEqual(
      response.body.errors?.map((issue: { path: unknown }) => issue.path),
      [['url']],
      url,
    );
  }
});

test('in development http is saved to any host and judged at the call, where only loopback passes', async (t) => {
  t.truthy(checkUrlTextToSave('http://127.0.0.1:8080/mcp', development));
  t.truthy(checkUrlTextToSave('http://dev-box:8080/mcp', development));
  t.throws(() => checkUrlTextToSave('http://10.0.0.7:8080/mcp', development), { message: /public address/ });
  await t.throwsAsync(checkOutboundUrl('http://dev-box:8080/mcp', development, { lookup: async () => ['10.0.0.7'] }), {
    message: /public address/,
  });
  await t.throwsAsync(checkOutboundUrl('http://dev-box:8080/mcp', development, { lookup: async () => ['1.1.1.1'] }), {
    message: /only to loopback/,
  });
});

test('calling out still needs the name resolved to public addresses', async (t) => {
  const notFound: HostLookup = (host) => Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
  await t.throwsAsync(checkOutboundUrl('https://mcp.example.com/mcp', production, { lookup: notFound }), {
    message: 'URL host does not resolve to a public address',
  });
  // The same words for a name that resolves privately: a 502's detail tells the two apart no more than saving does.
  await t.throwsAsync(checkOutboundUrl('https://mcp.example.com/mcp', production, { lookup: async () => ['192.168.0.10'] }), {
    message: 'URL host does not resolve to a public address',
  });
});

test('each of the 23 catalog entries can be added to an agent where public names do not resolve', async (t) => {
  await seedCatalog(t.context.t.db.pool);
  const auth = `Bearer ${await t.context.t.login('owner@demo.test')}`;
  const list = await t.context.t.http().get('/api/available-mcps?limit=100').set('authorization', auth).expect(200);
  const entries = list.body.data ?? list.body.items ?? list.body;
  t.is(entries.length, 23);
  type Variant = { type: string; credentialSchema: { fields: { key: string; required: boolean }[] } };
  const statuses: string[] = [];
  for (const entry of entries as { id: string; name: string; variants: Variant[] }[]) {
    const variant = entry.variants.find((v) => v.type === 'free') ?? entry.variants.find((v) => v.type === 'oauth') ?? entry.variants[0]!;
    const credentials = Object.fromEntries(variant.credentialSchema.fields.filter((f) => f.required).map((f) => [f.key, 'test-token']));
    const response = await t.context.t
      .http()
      .post(`/api/ai/agents/${AGENTS.research.id}/mcp-servers`)
      .set('authorization', auth)
      .send({
        name: entry.name,
        availableMcpId: entry.id,
        variantType: variant.type,
        ...(variant.type === 'apikey' ? { credentials } : {}),
      });
    statuses.push(`${entry.name} ${response.status}`);
  }
  t.deepEqual(
    statuses,
    (entries as { name: string }[]).map((entry) => `${entry.name} 201`),
  );
});
