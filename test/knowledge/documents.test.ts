import anyTest, { type ExecutionContext } from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { withTestApp, type TestContext } from '../helpers/app.ts';
import { AGENT_NOT_FOUND, as, OTHER_AGENT, RESEARCH, SUPPORT } from '../tools/support.ts';
import { encryptedPdf, textPdf, truncatedPdf } from './pdf-fixtures.ts';
import { HELP_CENTER } from './help-center.ts';

const test = withTestApp(anyTest);

const documentsPath = (agentId: string) => `/api/ai/agents/${agentId}/documents`;
type Doc = { id: string; name: string; contentType: string; bytes: number; chunkCount: number; createdAt: string };

type T = ExecutionContext<TestContext>;

/** A multipart upload of `file` as the demo owner. */
const upload = (t: T, agentId: string, file: Buffer, name: string, type: string) =>
  as(t.context.t, 'owner@demo.test').then((owner) =>
    t.context.t
      .http()
      .post(documentsPath(agentId))
      .set('authorization', `Bearer ${owner.token}`)
      .attach('file', file, { filename: name, contentType: type }),
  );

/** `upload`, which must answer 201. */
async function added(t: T, ...args: [string, Buffer, string, string]) {
  const response = await upload(t, ...args);
  t.is(response.status, 201, JSON.stringify(response.body));
  return response;
}

test.serial('each format is added: 201 with its name, type, size and passages, and listed oldest first', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const markdown = await added(t, RESEARCH, Buffer.from(HELP_CENTER.refunds), 'refunds.md', 'text/markdown');
  t.like(markdown.body, { name: 'refunds.md', contentType: 'text/markdown', bytes: Buffer.byteLength(HELP_CENTER.refunds) });
  t.true(markdown.body.chunkCount >= 2);
  const plain = await added(t, RESEARCH, Buffer.from('Our office is open Monday to Friday.'), 'hours.txt', 'text/plain');
  t.like(plain.body, { name: 'hours.txt', contentType: 'text/plain', chunkCount: 1 });
  const html = await added(
    t,
    RESEARCH,
    Buffer.from(
      '<html><head><style>p{}</style><script>alert(1)</script></head><body><h1>Shipping</h1><p>We ship to 40 countries.</p></body></html>',
    ),
    'shipping.html',
    'text/html',
  );
  t.like(html.body, { contentType: 'text/html', chunkCount: 1 });
  const pdf = await added(t, RESEARCH, textPdf([['Warranty', 'Every device has a two year warranty.']]), 'warranty.pdf', 'application/pdf');
  t.like(pdf.body, { name: 'warranty.pdf', contentType: 'application/pdf', chunkCount: 1 });
  const json = await owner
    .post(documentsPath(RESEARCH), { name: 'faq.md', text: '# Accounts\n\nReset your password from the sign-in page.' })
    .expect(201);
  t.like(json.body, { name: 'faq.md', contentType: 'text/markdown', chunkCount: 1 });

  const listed = (await owner.get(documentsPath(RESEARCH)).expect(200)).body.documents as Doc[];
  t.deepEqual(
    listed.map((doc) => doc.name),
    ['refunds.md', 'hours.txt', 'shipping.html', 'warranty.pdf', 'faq.md'],
  );
  t.deepEqual(listed[0], markdown.body);

  // The HTML's script and style are not text of the document; the PDF's text is.
  const bodies = await t.context.t.db.pool.anyFirst(sql.type(z.strictObject({ body: z.string() }))`
    SELECT body FROM knowledge_chunks WHERE document_id IN (${html.body.id}, ${pdf.body.id}) ORDER BY body`);
  t.deepEqual(bodies, ['Warranty Every device has a two year warranty.', 'We ship to 40 countries.']);
  for (const doc of listed) await owner.delete(`${documentsPath(RESEARCH)}/${doc.id}`).expect(204);
});

test.serial('deleting a document removes it and its passages; a second delete is 404 AI.DOCUMENT_NOT_FOUND', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const added = await owner.post(documentsPath(RESEARCH), { name: 'temp.txt', text: 'Temporary words about zebras.' }).expect(201);
  await owner.delete(`${documentsPath(RESEARCH)}/${added.body.id}`).expect(204);
  t.deepEqual((await owner.get(documentsPath(RESEARCH)).expect(200)).body, { documents: [] });
  const chunks = await t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ n: z.number() }))`
    SELECT count(*)::int AS n FROM knowledge_chunks WHERE document_id = ${added.body.id}`);
  t.is(chunks, 0);
  const again = await owner.delete(`${documentsPath(RESEARCH)}/${added.body.id}`).expect(404);
  t.is(again.body.errorCode, 'AI.DOCUMENT_NOT_FOUND');
});

test('bad files are a 400 AI.DOCUMENT_INVALID naming the problem, and nothing is stored', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const cases: [Buffer, string, string, RegExp][] = [
    [truncatedPdf(), 'broken.pdf', 'application/pdf', /corrupt/],
    [encryptedPdf(), 'locked.pdf', 'application/pdf', /encrypted/],
    [Buffer.from('just words'), 'fake.pdf', 'application/pdf', /not a PDF/],
    [textPdf([['a pdf']]), 'claims.txt', 'text/plain', /is a PDF, not text\/plain/],
    [Buffer.from([0xff, 0xfe, 0x00, 0x41]), 'binary.txt', 'text/plain', /not UTF-8/],
    [Buffer.from('  \n\n  '), 'empty.md', 'text/markdown', /no text/],
    [Buffer.from('<html><script>only()</script></html>'), 'empty.html', 'text/html', /no text/],
    [Buffer.from('GIF89a'), 'image.gif', 'image/gif', /type image\/gif is not supported/],
  ];
  for (const [file, name, type, problem] of cases) {
    const response = await upload(t, SUPPORT, file, name, type);
    t.is(response.status, 400, name);
    t.is(response.body.errorCode, 'AI.DOCUMENT_INVALID', name);
    t.regex(response.body.message.en, problem, name);
  }
  t.deepEqual((await owner.get(documentsPath(SUPPORT)).expect(200)).body, { documents: [] });
});

test('a form without the file field, a JSON body with bad fields and another content type are refused', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const auth = `Bearer ${owner.token}`;
  const noFile = await t.context.t.http().post(documentsPath(SUPPORT)).set('authorization', auth).field('name', 'x');
  t.is(noFile.status, 400);
  t.deepEqual(noFile.body.errors[0].path, ['file']);
  const wrongField = await t.context.t
    .http()
    .post(documentsPath(SUPPORT))
    .set('authorization', auth)
    .attach('document', Buffer.from('text'), { filename: 'a.txt', contentType: 'text/plain' });
  t.is(wrongField.status, 400);
  const json = await owner.post(documentsPath(SUPPORT), { name: '', text: 'x', extra: 1 });
  t.is(json.status, 400);
  t.deepEqual(json.body.errors.map((issue: { path: string[] }) => issue.path.join('.')).sort(), ['extra', 'name']);
  const text = await t.context.t
    .http()
    .post(documentsPath(SUPPORT))
    .set('authorization', auth)
    .set('content-type', 'text/plain')
    .send('hi');
  t.is(text.status, 415);
});

test.serial('a JSON upload is read as every JSON body is, and its text is Markdown by its name, else plain text', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const raw = (type: string, body: string) =>
    t.context.t.http().post(documentsPath(SUPPORT)).set('authorization', `Bearer ${owner.token}`).set('content-type', type).send(body);
  for (const body of ['{"name":"a.md","text":"x",', '"text"', '{"name":"a.md","text":"x","__proto__":{"polluted":true}}']) {
    const refused = await raw('application/json', body);
    t.is(refused.status, 400, body);
    t.deepEqual(refused.body.errors, [{ path: [], message: 'Malformed JSON' }], body);
  }
  t.is((await raw('application/vnd.api+json', '{"name":"a.md","text":"x"}')).status, 415);
  const html = await owner.post(documentsPath(SUPPORT), { name: 'page.html', text: '<p>Opening hours</p>' }).expect(201);
  t.like(html.body, { name: 'page.html', contentType: 'text/plain' });
  const markdown = await owner.post(documentsPath(SUPPORT), { name: 'NOTES.MARKDOWN', text: '# Notes\n\nOpen on Sundays.' }).expect(201);
  t.like(markdown.body, { contentType: 'text/markdown' });
  for (const added of [html.body, markdown.body] as Doc[]) await owner.delete(`${documentsPath(SUPPORT)}/${added.id}`).expect(204);
});

test('a malformed multipart body is a 400 in the validation envelope, naming the problem', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const response = await t.context.t
    .http()
    .post(documentsPath(SUPPORT))
    .set('authorization', `Bearer ${owner.token}`)
    .set('content-type', 'multipart/form-data; boundary=fuzz')
    .send('{"name":"notes","text":"not a form"}');
  t.is(response.status, 400);
  t.deepEqual(response.body.errors, [{ path: [], message: 'The multipart body is malformed' }]);
  t.deepEqual((await owner.get(documentsPath(SUPPORT)).expect(200)).body, { documents: [] });
});

test('a file over 10 MiB is a 413', async (t) => {
  const big = Buffer.alloc(10 * 1024 * 1024 + 1, 'a');
  const response = await upload(t, SUPPORT, big, 'big.txt', 'text/plain');
  t.is(response.status, 413);
});

test("another agency's agent is a 404 and a member without update on ai.agent is a 403", async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  t.deepEqual((await owner.post(documentsPath(OTHER_AGENT), { name: 'a.txt', text: 'x' }).expect(404)).body, AGENT_NOT_FOUND);
  t.deepEqual((await owner.get(documentsPath(OTHER_AGENT)).expect(404)).body, AGENT_NOT_FOUND);
  const other = await as(t.context.t, 'owner@other.test');
  const mine = await owner.post(documentsPath(SUPPORT), { name: 'mine.txt', text: 'Private words.' }).expect(201);
  t.deepEqual((await other.delete(`${documentsPath(SUPPORT)}/${mine.body.id}`).expect(404)).body, AGENT_NOT_FOUND);
  const member = await as(t.context.t, 'member@demo.test');
  await member.post(documentsPath(SUPPORT), { name: 'm.txt', text: 'x' }).expect(403);
  await member.delete(`${documentsPath(SUPPORT)}/${mine.body.id}`).expect(403);
  await owner.delete(`${documentsPath(SUPPORT)}/${mine.body.id}`).expect(204);
});
