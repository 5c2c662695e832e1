import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';
import { listening, rawExchange } from './raw-http.ts';

const test = withTestApp(anyTest, { seed: false });

test('TRACE and WebDAV methods on a known path answer 405 in the JSON envelope with Allow', async (t) => {
  const port = await listening(t.context.t.app, t.teardown);
  for (const method of ['TRACE', 'PROPFIND', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK', 'PROPPATCH', 'PUT', 'PURGE']) {
    const response = await rawExchange(port, `${method} /api/ai/agents HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    t.is(response.status, 405, method);
    t.regex(response.headers, /\r\nAllow: GET, HEAD, OPTIONS, POST\r\n/i, method);
    const body = JSON.parse(response.body) as { statusCode: number; message: string };
    t.is(body.statusCode, 405);
    t.is(typeof body.message, 'string');
  }
});

test('an unknown method on an unknown path is a 404 envelope, and OPTIONS on a known path is 204 with Allow', async (t) => {
  const missing = await t.context.t.http().delete('/api/nowhere').expect(404);
  t.deepEqual(Object.keys(missing.body).sort(), ['message', 'statusCode']);
  const options = await t.context.t.http().options('/api/health').expect(204);
  t.is(options.headers.allow, 'GET, HEAD, OPTIONS');
});

test('a method Node does not know is a 501 envelope, never a 500', async (t) => {
  const port = await listening(t.context.t.app, t.teardown);
  const response = await rawExchange(port, 'FROB /api/ai/agents HTTP/1.1\r\nHost: x\r\n\r\n');
  t.is(response.status, 501);
  t.deepEqual(JSON.parse(response.body), { statusCode: 501, message: 'Not implemented' });
});
