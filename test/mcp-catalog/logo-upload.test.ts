import anyTest, { type ExecutionContext } from 'ava';
import type { Response } from 'superagent';
import { withTestApp, type TestContext } from '../helpers/app.ts';
import { entry } from './fixtures.ts';

const test = withTestApp(anyTest);

const admin = async (t: ExecutionContext<TestContext>) => `Bearer ${await t.context.t.login('admin@platform.test')}`;

/** The smallest PNG signature plus an IHDR chunk's start: enough for the magic-byte check. */
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01', 'latin1'),
]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('\0\x10JFIF\0', 'latin1')]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x1a, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

const binary = (res: Response, done: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  (res as unknown as NodeJS.ReadableStream).on('data', (chunk: Buffer) => chunks.push(chunk));
  (res as unknown as NodeJS.ReadableStream).on('end', () => done(null, Buffer.concat(chunks)));
};

async function createEntry(t: ExecutionContext<TestContext>, name: string) {
  const response = await t.context.t
    .http()
    .post('/api/available-mcps')
    .set('authorization', await admin(t))
    .send(entry(name))
    .expect(201);
  return response.body as { id: string; logo: string; updatedAt: string };
}

test('an admin creates an entry whose logo is an unshipped relative path to an image (201), and PATCH accepts another', async (t) => {
  const auth = await admin(t);
  const created = await t.context.t
    .http()
    .post('/api/available-mcps')
    .set('authorization', auth)
    .send(entry('Acme', { logo: 'logos/acme.svg' }))
    .expect(201);
  t.is(created.body.logo, 'logos/acme.svg');
  for (const logo of ['assets/brand/acme_logo-2.PNG', 'acme.webp', 'a/b/c/d.e.jpeg', `${'x'.repeat(251)}.png`, 'logos/github.svg', '']) {
    const patched = await t.context.t
      .http()
      .patch(`/api/available-mcps/${created.body.id}`)
      .set('authorization', auth)
      .send({ logo })
      .expect(200);
    t.is(patched.body.logo, logo);
  }
});

test('a logo that is not a relative image path or an https URL is a 400 at logo and changes nothing', async (t) => {
  const auth = await admin(t);
  const created = await createEntry(t, 'Strict Logos');
  const refused = [
    '/logos/acme.svg',
    '../acme.svg',
    'logos/../acme.svg',
    'logos\\acme.svg',
    'logos/acme.txt',
    'logos/acme',
    'data:image/png;base64,AAAA',
    'file:acme.png',
    `${'x'.repeat(252)}.png`,
    'logos/acme.svg?x=1',
    'logos//acme.svg',
    'http://cdn.example.com/acme.svg',
    'https://user:pw@cdn.example.com/acme.svg',
    'https://cdn.example.com/a b.svg',
  ];
  for (const logo of refused) {
    const bad = await t.context.t.http().patch(`/api/available-mcps/${created.id}`).set('authorization', auth).send({ logo }).expect(400);
    t.deepEqual(
      bad.body.errors,
      [
        {
          path: ['logo'],
          message: 'must be empty, a relative path to an image of at most 255 characters (such as logos/github.svg) or an https URL',
        },
      ],
      logo,
    );
  }
  const list = await t.context.t.http().get('/api/available-mcps?limit=100').set('authorization', auth).expect(200);
  t.is(list.body.find((e: { id: string }) => e.id === created.id).logo, created.logo);
});

test('an uploaded PNG becomes logos/<id>.png, served with nosniff, a CSP of none and an ETag that answers 304', async (t) => {
  const created = await createEntry(t, 'Uploaded Png');
  const put = await t.context.t
    .http()
    .put(`/api/available-mcps/${created.id}/logo`)
    .set('authorization', await admin(t))
    .set('content-type', 'image/png')
    .send(PNG)
    .expect(200);
  t.is(put.body.logo, `logos/${created.id}.png`);
  t.is(put.body.id, created.id);
  t.true(put.body.updatedAt >= created.updatedAt);

  const served = await t.context.t.http().get(`/api/static/${put.body.logo}`).buffer(true).parse(binary).expect(200);
  t.deepEqual(served.body, PNG);
  t.is(served.headers['content-type'], 'image/png');
  t.is(served.headers['x-content-type-options'], 'nosniff');
  t.is(served.headers['content-security-policy'], "default-src 'none'");
  t.regex(served.headers['etag']!, /^"[A-Za-z0-9_-]{43}"$/);
  t.regex(served.headers['cache-control']!, /no-cache/);

  const again = await t.context.t.http().get(`/api/static/${put.body.logo}`).set('if-none-match', served.headers['etag']!);
  t.is(again.status, 304);
  t.is(again.headers['etag'], served.headers['etag']);
  const other = await t.context.t.http().get(`/api/static/${put.body.logo}`).set('if-none-match', '"something-else"');
  t.is(other.status, 200);
});

test('the image type is decided by its bytes: JPEG and WebP are recognised whatever Content-Type says, and a new upload replaces the old', async (t) => {
  const auth = await admin(t);
  const created = await createEntry(t, 'Sniffed Types');
  const jpeg = await t.context.t
    .http()
    .put(`/api/available-mcps/${created.id}/logo`)
    .set('authorization', auth)
    .set('content-type', 'image/png')
    .send(JPEG)
    .expect(200);
  t.is(jpeg.body.logo, `logos/${created.id}.jpg`);
  const servedJpeg = await t.context.t.http().get(`/api/static/logos/${created.id}.jpg`).buffer(true).parse(binary).expect(200);
  t.is(servedJpeg.headers['content-type'], 'image/jpeg');
  t.deepEqual(servedJpeg.body, JPEG);

  const webp = await t.context.t
    .http()
    .put(`/api/available-mcps/${created.id}/logo`)
    .set('authorization', auth)
    .set('content-type', 'application/octet-stream')
    .send(WEBP)
    .expect(200);
  t.is(webp.body.logo, `logos/${created.id}.webp`);
  const servedWebp = await t.context.t.http().get(`/api/static/logos/${created.id}.webp`).buffer(true).parse(binary).expect(200);
  t.is(servedWebp.headers['content-type'], 'image/webp');
  await t.context.t.http().get(`/api/static/logos/${created.id}.jpg`).expect(404);
});

test('SVG, other bytes and an empty body are 415, more than 256 KB is 413, and the entry keeps its logo', async (t) => {
  const auth = await admin(t);
  const created = await createEntry(t, 'Refused Uploads');
  const put = (body: Buffer, type = 'image/png') =>
    t.context.t.http().put(`/api/available-mcps/${created.id}/logo`).set('authorization', auth).set('content-type', type).send(body);
  for (const [body, type] of [
    [SVG, 'image/svg+xml'],
    [SVG, 'image/png'],
    [Buffer.from('GIF89a'), 'image/gif'],
    [Buffer.alloc(0), 'image/png'],
  ] as const) {
    const refused = await put(body, type);
    t.is(refused.status, 415);
    t.deepEqual(refused.body, { statusCode: 415, message: 'The logo must be a PNG, JPEG or WebP image (SVG is not accepted)' });
  }
  const large = await put(Buffer.concat([PNG, Buffer.alloc(256 * 1024 + 1 - PNG.length)]));
  t.is(large.status, 413);
  t.deepEqual(large.body, { statusCode: 413, message: 'Payload too large (at most 262144 bytes)' });
  const exact = await put(Buffer.concat([PNG, Buffer.alloc(256 * 1024 - PNG.length)]));
  t.is(exact.status, 200);

  const bad = await t.context.t
    .http()
    .put(`/api/available-mcps/${created.id}/logo`)
    .set('authorization', auth)
    .set('content-type', 'image/png')
    .send(SVG);
  t.is(bad.status, 415);
  const list = await t.context.t.http().get('/api/available-mcps?limit=100').set('authorization', auth).expect(200);
  t.is(list.body.find((e: { id: string }) => e.id === created.id).logo, `logos/${created.id}.png`);
});

test('uploading a logo needs the platform policy (403), a token (401) and an existing entry (404)', async (t) => {
  const created = await createEntry(t, 'Guarded Upload');
  const owner = `Bearer ${await t.context.t.login('owner@demo.test')}`;
  const forbidden = await t.context.t
    .http()
    .put(`/api/available-mcps/${created.id}/logo`)
    .set('authorization', owner)
    .set('content-type', 'image/png')
    .send(PNG);
  t.is(forbidden.status, 403);
  const anonymous = await t.context.t.http().put(`/api/available-mcps/${created.id}/logo`).set('content-type', 'image/png').send(PNG);
  t.is(anonymous.status, 401);
  const missing = await t.context.t
    .http()
    .put('/api/available-mcps/01900000-0000-7000-8000-00000000dead/logo')
    .set('authorization', await admin(t))
    .set('content-type', 'image/png')
    .send(PNG);
  t.is(missing.status, 404);
  t.deepEqual(missing.body, { statusCode: 404, message: 'Catalog entry not found' });
  await t.context.t.http().get('/api/static/logos/01900000-0000-7000-8000-00000000dead.png').expect(404);
  await t.context.t.http().get(`/api/static/logos/${created.id}.png`).expect(404);
});
