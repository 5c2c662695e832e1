import anyTest from 'ava';
import type { App } from '../../app/app.ts';
import { documentReaders } from '../../app/knowledge/readers.ts';
import { flateBombPdf, hostileDocuments, uploadBody, type DocumentUpload } from '../../fuzz/document-bombs.ts';
import { testConfig, withTestApp } from '../helpers/app.ts';
import { RESEARCH } from '../tools/support.ts';
import request from 'supertest';

const test = withTestApp(anyTest);

const documentsPath = `/api/ai/agents/${RESEARCH}/documents`;

/** The next turn of the event loop: lets the app run its callbacks (no clock involved). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Uploads `upload` to `app`, and once the app is reading it (a reader is busy), asks for
 * `/api/health`. Answers both responses and the order they came in.
 */
async function uploadWhileHealthIsAsked(app: App, token: string, upload: DocumentUpload) {
  const { contentType, body } = uploadBody(upload);
  const readers = documentReaders(app.deps);
  const order: string[] = [];
  const uploaded = request(app.callback())
    .post(documentsPath)
    .set('authorization', `Bearer ${token}`)
    .set('content-type', contentType)
    // A Buffer would be serialized by supertest as JSON; a string goes as it is.
    .send(contentType === 'application/json' ? body.toString('utf8') : body)
    .then((response) => {
      order.push('upload');
      return response;
    });
  while (readers.active === 0 && order.length === 0) await turn();
  const health = await request(app.callback()).get('/api/health');
  order.push('health');
  return { upload: await uploaded, health, order };
}

for (const upload of hostileDocuments()) {
  test.serial(`${upload.label}: answered 201 or a 400 naming the problem, /api/health answered while it is read`, async (t) => {
    const token = await t.context.t.login('owner@demo.test');
    const { upload: answer, health, order } = await uploadWhileHealthIsAsked(t.context.t.app, token, upload);
    t.true(
      answer.status === 201 || (answer.status === 400 && answer.body.errorCode === 'AI.DOCUMENT_INVALID'),
      JSON.stringify(answer.body),
    );
    t.is(health.status, 200);
    t.deepEqual(order, ['health', 'upload']);
  });
}

test.serial("the review's 1 GiB-stream PDF is a 400 naming the decompression bomb, /api/health answered while it is read", async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  const bomb = { label: 'bomb', name: 'bomb.pdf', type: 'application/pdf', body: flateBombPdf() };
  const { upload, health, order } = await uploadWhileHealthIsAsked(t.context.t.app, token, bomb);
  t.is(upload.status, 400);
  t.is(upload.body.errorCode, 'AI.DOCUMENT_INVALID');
  t.regex(upload.body.message.en, /inflates to more than 64 MiB \(a decompression bomb\)/);
  t.is(health.status, 200);
  t.deepEqual(order, ['health', 'upload']);
});

test('with every reader busy and the queue full, an upload is 503 CORE.SERVICE_UNAVAILABLE with Retry-After, and nothing is stored', async (t) => {
  const config = testConfig();
  const app = t.context.t.rebuild({ config: { ...config, knowledge: { ...config.knowledge, readers: 1, readerQueue: 0 } } });
  const token = await t.context.t.login('owner@demo.test');
  const before = await request(app.callback()).get(documentsPath).set('authorization', `Bearer ${token}`).expect(200);
  let release!: () => void;
  const held = documentReaders(app.deps).run(() => new Promise<void>((resolve) => (release = resolve)));
  const refused = await request(app.callback())
    .post(documentsPath)
    .set('authorization', `Bearer ${token}`)
    .send({ name: 'busy.txt', text: 'Words while every reader is busy.' });
  t.is(refused.status, 503);
  t.is(refused.headers['retry-after'], '1');
  t.like(refused.body, { statusCode: 503, errorCode: 'CORE.SERVICE_UNAVAILABLE', metadata: { retryAfterSeconds: 1 } });
  const after = await request(app.callback()).get(documentsPath).set('authorization', `Bearer ${token}`).expect(200);
  t.deepEqual(after.body, before.body);
  release();
  await held;
  await request(app.callback())
    .post(documentsPath)
    .set('authorization', `Bearer ${token}`)
    .send({ name: 'free.txt', text: 'Words once a reader is free.' })
    .expect(201);
});
