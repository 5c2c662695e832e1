import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest);

test('an unknown route answers a JSON 404 envelope', async (t) => {
  const response = await t.context.t.http().get('/api/does-not-exist').expect(404);
  t.deepEqual(response.body, { statusCode: 404, message: 'Route GET /api/does-not-exist not found' });
});

test('a missing required property is reported at its path with the message Required', async (t) => {
  const response = await t.context.t.http().post('/api/identity/auth/user/login').send({ email: 'a@b.co' }).expect(400);
  t.deepEqual(response.body, {
    statusCode: 400,
    message: 'Validation failed',
    errors: [{ path: ['password'], message: 'Required' }],
  });
});

test('an unknown property is an error at its own path', async (t) => {
  const response = await t.context.t
    .http()
    .post('/api/identity/auth/user/login')
    .send({ email: 'a@b.co', password: 'x', enabledTools: ['search'] })
    .expect(400);
  t.deepEqual(response.body.errors, [{ path: ['enabledTools'], message: 'Unrecognized key' }]);
});

test('a body that is not valid JSON is a 400 in the validation envelope', async (t) => {
  const response = await t.context.t
    .http()
    .post('/api/identity/auth/user/login')
    .set('content-type', 'application/json')
    .send('{"email": "a@b.co",')
    .expect(400);
  t.deepEqual(response.body, { statusCode: 400, message: 'Validation failed', errors: [{ path: [], message: 'Malformed JSON' }] });
});

test('a body over the size limit is a 413 envelope', async (t) => {
  const response = await t.context.t
    .http()
    .post('/api/identity/auth/user/login')
    .send({ email: 'a@b.co', password: 'x'.repeat(200 * 1024) })
    .expect(413);
  t.deepEqual(response.body, { statusCode: 413, message: 'Payload too large' });
});

test('a missing token is a 401 envelope', async (t) => {
  const response = await t.context.t.http().get('/api/identity/me').expect(401);
  t.deepEqual(response.body, { statusCode: 401, message: 'Invalid or missing access token' });
});

test('a request id is echoed when well-formed and generated otherwise', async (t) => {
  const echoed = await t.context.t.http().get('/api/health').set('x-request-id', 'abc-123').expect(200);
  t.is(echoed.headers['x-request-id'], 'abc-123');
  const generated = await t.context.t.http().get('/api/health').set('x-request-id', 'bad id with spaces').expect(200);
  t.regex(generated.headers['x-request-id'] as string, /^[0-9a-f-]{36}$/);
});
