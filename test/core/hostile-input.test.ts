import anyTest from 'ava';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest);

const bearer = async (t: { context: { t: { login(email: string): Promise<string> } } }) =>
  `Bearer ${await t.context.t.login('owner@demo.test')}`;

test('a NUL character in any body string is a 400 naming the field, and nothing is stored', async (t) => {
  const authorization = await bearer(t);
  for (const name of ['\u0000', 'Agent\u0000name']) {
    const response = await t.context.t.http().post('/api/ai/agents').set('authorization', authorization).send({ name }).expect(400);
    t.deepEqual(response.body, {
      statusCode: 400,
      message: 'Validation failed',
      errors: [{ path: ['name'], message: 'must not contain the NUL character (U+0000)' }],
    });
  }
  const agents = await t.context.t.http().get('/api/ai/agents').set('authorization', authorization).expect(200);
  t.false(JSON.stringify(agents.body).includes('\\u0000'));
});

test('a NUL character in an object key or a query value is a 400 at its path', async (t) => {
  const authorization = await bearer(t);
  const key = await t.context.t.http().post('/api/ai/agents').set('authorization', authorization).send({ 'na\u0000me': 'x' }).expect(400);
  t.true((key.body.errors as Array<{ path: string[] }>).some((error) => error.path[0] === 'na\u0000me'));
  const query = await t.context.t.http().get('/api/available-mcps?tags[0]=a%00b').set('authorization', authorization).expect(400);
  t.deepEqual(query.body.errors, [{ path: ['query', 'tags', '0'], message: 'must not contain the NUL character (U+0000)' }]);
});

test('non-finite and huge numbers in an integer query parameter are a 400 naming the parameter', async (t) => {
  const authorization = await bearer(t);
  for (const value of ['Infinity', '-Infinity', '1e309', 'NaN', '9007199254740993']) {
    const response = await t.context.t.http().get(`/api/available-mcps?page=${value}`).set('authorization', authorization).expect(400);
    t.deepEqual(
      (response.body.errors as Array<{ path: string[] }>).map((error) => error.path),
      [['query', 'page']],
      value,
    );
  }
  await t.context.t.http().get('/api/available-mcps?page=-0&limit=1').set('authorization', authorization).expect(400);
});

test('lone surrogates and invalid UTF-8 are replaced by U+FFFD, in bodies, query strings and paths alike', async (t) => {
  const authorization = await bearer(t);
  const created = await t.context.t
    .http()
    .post('/api/ai/agents')
    .set('authorization', authorization)
    .set('content-type', 'application/json')
    .send('{"name":"Lone \\ud800 surrogate"}');
  t.is(created.status, 201, JSON.stringify(created.body));
  t.is(created.body.name, 'Lone \uFFFD surrogate');
  const bytes = Buffer.concat([Buffer.from('{"name":"Bad '), Buffer.from([0xff, 0xfe]), Buffer.from(' bytes"}')]);
  // supertest would serialise a Buffer as JSON; fetch sends the bytes as they are.
  const server = t.context.t.app.listen(0);
  await once(server, 'listening');
  t.teardown(() => server.close());
  const replacedResponse = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/ai/agents`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: bytes,
  });
  const replaced = { status: replacedResponse.status, body: (await replacedResponse.json()) as { name: string } };
  t.is(replaced.status, 201, JSON.stringify(replaced.body));
  t.is(replaced.body.name, 'Bad \uFFFD\uFFFD bytes');
  const query = await t.context.t.http().get('/api/available-mcps?tags[0]=%FF%ED%A0%80').set('authorization', authorization).expect(200);
  t.deepEqual(query.body.items ?? query.body, []);
  const nul = await t.context.t
    .http()
    .delete(`/api/ai/agents/${created.body.id}/tool-overrides/a%00b`)
    .set('authorization', authorization)
    .expect(400);
  t.deepEqual(nul.body.errors, [{ path: ['params', 'toolName'], message: 'must not contain the NUL character (U+0000)' }]);
  const invalid = await t.context.t
    .http()
    .delete(`/api/ai/agents/${created.body.id}/tool-overrides/%FF%E0`)
    .set('authorization', authorization);
  t.is(invalid.status, 204);
});
