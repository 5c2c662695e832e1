import test from 'ava';
import { checkOutboundUrl, checkUrlTextToSave, isPublicAddress, urlPolicyFor, UrlRefusedError } from '../../app/net/url-policy.ts';

const production = { allowLoopbackHttp: false };
const development = { allowLoopbackHttp: true };
const resolvesTo =
  (...addresses: string[]) =>
  async () =>
    addresses;

test('only development allows loopback http', (t) => {
  t.true(urlPolicyFor({ nodeEnv: 'development' }).allowLoopbackHttp);
  t.false(urlPolicyFor({ nodeEnv: 'production' }).allowLoopbackHttp);
  t.false(urlPolicyFor({ nodeEnv: 'test' }).allowLoopbackHttp);
});

test('public unicast addresses are public, every special-purpose range is not', (t) => {
  for (const address of ['1.1.1.1', '8.8.8.8', '2606:4700:4700::1111']) t.true(isPublicAddress(address, production), address);
  for (const address of [
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.1',
    '127.0.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '0.1.2.3',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fc00::1',
    'fd00:ec2::254',
    'fe80::1',
    'ff02::1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:127.0.0.1',
    'not-an-ip',
  ]) {
    t.false(isPublicAddress(address, production), address);
  }
  t.true(isPublicAddress('::ffff:1.1.1.1', production));
  t.true(isPublicAddress('127.0.0.1', development));
  t.true(isPublicAddress('::1', development));
  t.false(isPublicAddress('10.0.0.1', development));
});

test('https to a public host is accepted and returned parsed', async (t) => {
  const url = await checkOutboundUrl('https://mcp.example.com/mcp', production, { lookup: resolvesTo('1.1.1.1') });
  t.is(url.href, 'https://mcp.example.com/mcp');
  t.is((await checkOutboundUrl('https://1.1.1.1/mcp', production)).hostname, '1.1.1.1');
});

test('URLs that are not absolute https, or carry credentials, are refused', async (t) => {
  for (const raw of ['mcp.example.com/mcp', 'ftp://1.1.1.1/', 'http://1.1.1.1/mcp', 'https://user:pw@1.1.1.1/', 'file:///etc/passwd']) {
    await t.throwsAsync(checkOutboundUrl(raw, production), { instanceOf: UrlRefusedError }, raw);
  }
});

test('private, link-local, metadata and loopback targets are refused, literal or resolved', async (t) => {
  for (const raw of [
    'https://10.1.2.3/',
    'https://169.254.169.254/latest/meta-data',
    'https://[fe80::1]/',
    'https://[::ffff:a00:1]/',
    'https://127.0.0.1/',
    'https://0x7f.1/',
    'https://2130706433/',
    'https://metadata.google.internal/',
    'https://METADATA.google.internal./computeMetadata/v1/',
  ]) {
    await t.throwsAsync(checkOutboundUrl(raw, production, { lookup: resolvesTo('1.1.1.1') }), { instanceOf: UrlRefusedError }, raw);
  }
  // A name is refused when any one of its addresses is not public.
  await t.throwsAsync(checkOutboundUrl('https://mixed.example.com/', production, { lookup: resolvesTo('1.1.1.1', '192.168.0.10') }), {
    instanceOf: UrlRefusedError,
  });
  await t.throwsAsync(checkOutboundUrl('https://gone.example.com/', production, { lookup: () => Promise.reject(new Error('ENOTFOUND')) }), {
    message: 'URL host does not resolve to a public address',
  });
});

test('http to loopback is allowed only by the development policy, and http elsewhere never', async (t) => {
  t.is((await checkOutboundUrl('http://127.0.0.1:8080/mcp', development)).port, '8080');
  t.truthy(await checkOutboundUrl('http://localhost:8080/mcp', development, { lookup: resolvesTo('127.0.0.1', '::1') }));
  await t.throwsAsync(checkOutboundUrl('http://127.0.0.1:8080/mcp', production), { instanceOf: UrlRefusedError });
  await t.throwsAsync(checkOutboundUrl('http://1.1.1.1/mcp', development), { instanceOf: UrlRefusedError });
  await t.throwsAsync(checkOutboundUrl('http://10.0.0.1/mcp', development), { instanceOf: UrlRefusedError });
});

test('IPv4-compatible ::/96 and the local-use NAT64 prefix 64:ff9b:1::/48 are refused like the other embedded-IPv4 forms', async (t) => {
  // Each carries an IPv4 address (private, metadata or public): the target behind it cannot be checked.
  const embedded = [
    '::a00:1', // ::10.0.0.1
    '::7f00:1', // ::127.0.0.1
    '::a9fe:a9fe', // ::169.254.169.254
    '::808:808', // ::8.8.8.8: public, still refused (the whole prefix is)
    '::1.2.3.4', // the dotted form of ::102:304, not the IPv4-mapped ::ffff:1.2.3.4
    '64:ff9b:1::a00:1',
    '64:ff9b:1:ffff::808:808',
    '64:ff9b::a9fe:a9fe',
    '2002:a00:1::1',
    '2001:0:a00:1::1',
  ];
  for (const address of embedded) {
    t.false(isPublicAddress(address, production), address);
    t.false(isPublicAddress(address, development), address);
    await t.throwsAsync(checkOutboundUrl(`https://[${address}]/mcp`, production), { instanceOf: UrlRefusedError }, address);
    t.throws(() => checkUrlTextToSave(`https://[${address}]/mcp`, production), { instanceOf: UrlRefusedError }, address);
    await t.throwsAsync(
      checkOutboundUrl('https://rebound.example.com/mcp', production, { lookup: resolvesTo(address) }),
      { instanceOf: UrlRefusedError },
      `resolved to ${address}`,
    );
  }
  // Neighbours of those prefixes are ordinary global unicast, and loopback keeps its own rule.
  for (const address of ['64:ff9b:2::1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) t.true(isPublicAddress(address, production), address);
  t.true(isPublicAddress('::1', development));
  t.false(isPublicAddress('::1', production));
});
