import anyTest from 'ava';
import { loadCatalogSeed } from '../../seeds/mcp-catalog.ts';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest);

test('every seeded catalog logo is served as a cacheable SVG under /api/static', async (t) => {
  const entries = loadCatalogSeed();
  t.is(entries.length, 23);
  for (const entry of entries) {
    const response = await t.context.t
      .http()
      .get(`/api/static/${entry.logo}`)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    t.is(response.status, 200, entry.logo);
    t.is(response.headers['content-type'], 'image/svg+xml');
    t.regex(response.headers['cache-control']!, /max-age=31536000/);
    const svg = (response.body as Buffer).toString('utf8');
    t.true(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'), entry.logo);
    t.true(svg.includes(`<title>${entry.name}</title>`), entry.logo);
    t.false(/<script|on\w+=/i.test(svg), 'no script in the image');
  }
});

test('an unknown logo is a 404 and a file name outside the logo set a 400', async (t) => {
  const missing = await t.context.t.http().get('/api/static/logos/nope.svg').expect(404);
  t.deepEqual(missing.body, { statusCode: 404, message: 'Logo not found' });
  await t.context.t.http().get('/api/static/logos/..%2Fmcp-catalog.json').expect(400);
  await t.context.t.http().get('/api/static/logos/x.png').expect(400);
});
