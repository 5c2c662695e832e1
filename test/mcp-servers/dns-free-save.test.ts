import anyTest from 'ava';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { seedCatalog } from '../../seeds/mcp-catalog.ts';
import { checkOutboundUrl, checkUrlToSave, UrlRefusedError, type HostLookup } from '../../app/net/url-policy.ts';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest);

const production = { allowLoopbackHttp: false };
const development = { allowLoopbackHttp: true };

/** Resolvers that fail the way a resolver does where DNS is down, counting their calls. */
function resolver(behaviour: 'notfound' | 'hang' | 'servfail' | 'empty' | string[]) {
  const calls: string[] = [];
  const lookup: HostLookup = (host) => {
    calls.push(host);
    if (behaviour === 'notfound') return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
    if (behaviour === 'servfail') return Promise.reject(Object.assign(new Error(`queryA ESERVFAIL ${host}`), { code: 'ESERVFAIL' }));
    if (behaviour === 'hang') return new Promise<string[]>(() => {});
    if (behaviour === 'empty') return Promise.resolve([]);
    return Promise.resolve(behaviour);
  };
  return { lookup, calls };
}

test('a name that cannot be resolved now is accepted at save time: ENOTFOUND, a resolver error, a timeout, no answer', async (t) => {
  for (const behaviour of ['notfound', 'servfail', 'hang', 'empty'] as const) {
    const { lookup, calls } = resolver(behaviour);
    const started = Date.now();
    const url = await checkUrlToSave('https://mcp.example.com/mcp', production, { lookup, timeoutMs: 50 });
    t.is(url.href, 'https://mcp.example.com/mcp', behaviour);
    t.deepEqual(calls, ['mcp.example.com']);
    t.true(Date.now() - started < 1_000, behaviour);
  }
});

test('a name that does resolve to a non-public address is refused at save time', async (t) => {
  for (const addresses of [['10.0.0.7'], ['1.1.1.1', '192.168.0.10'], ['169.254.169.254'], ['::1'], ['fd00:ec2::254']]) {
    const { lookup } = resolver(addresses);
    await t.throwsAsync(checkUrlToSave('https://internal.example.com/mcp', production, { lookup }), {
      instanceOf: UrlRefusedError,
      message: /public address/,
    });
  }
  t.truthy(await checkUrlToSave('https://mcp.example.com/mcp', production, { lookup: resolver(['1.1.1.1']).lookup }));
});

test('what the URL alone shows is refused at save time without any lookup', async (t) => {
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
  for (const [raw, message] of cases) {
    const { lookup, calls } = resolver('notfound');
    await t.throwsAsync(checkUrlToSave(raw, production, { lookup }), { instanceOf: UrlRefusedError, message }, raw);
    t.deepEqual(calls, [], raw);
  }
});

test('http is saved only to loopback in development, where an unresolvable name cannot show it is loopback', async (t) => {
  t.truthy(await checkUrlToSave('http://127.0.0.1:8080/mcp', development, { lookup: resolver('notfound').lookup }));
  t.truthy(await checkUrlToSave('http://localhost:8080/mcp', development, { lookup: resolver(['127.0.0.1']).lookup }));
  await t.throwsAsync(checkUrlToSave('http://dev-box:8080/mcp', development, { lookup: resolver('notfound').lookup }), {
    message: /only to loopback/,
  });
});

test('calling out still needs the name resolved to public addresses: the call-time check is unchanged', async (t) => {
  await t.throwsAsync(checkOutboundUrl('https://mcp.example.com/mcp', production, { lookup: resolver('notfound').lookup }), {
    message: 'URL host could not be resolved',
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
