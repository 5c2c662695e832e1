import anyTest from 'ava';
import { openApiPath } from '../../app/core/openapi.ts';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest, { seed: false });

test('every mounted route is in the OpenAPI document', async (t) => {
  const response = await t.context.t.http().get('/api/openapi.json').expect(200);
  const document = response.body as { openapi: string; paths: Record<string, Record<string, unknown>> };
  t.is(document.openapi, '3.1.0');
  const router = t.context.t.app.middleware.find((fn) => 'router' in fn) as unknown as {
    router: { stack: Array<{ path: string; methods: string[] }> };
  };
  const mounted = router.router.stack.flatMap((layer) =>
    layer.methods.filter((m) => m !== 'HEAD').map((method) => `${method} ${openApiPath(layer.path)}`),
  );
  t.true(mounted.length >= 5);
  const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
  );
  t.deepEqual([...mounted].sort(), [...documented].sort());
});

test('the docs page is served from this process with its assets', async (t) => {
  const page = await t.context.t.http().get('/api/docs').expect(200);
  t.regex(page.headers['content-type'] as string, /text\/html/);
  t.regex(page.text, /\/api\/docs\/assets\/swagger-ui-bundle\.js/);
  t.notRegex(page.text, /https?:\/\/(?!localhost)/);
  const bundle = await t.context.t.http().get('/api/docs/assets/swagger-ui-bundle.js').expect(200);
  t.true(bundle.text.length > 100_000);
  await t.context.t.http().get('/api/docs/assets/secret.txt').expect(400);
});

test('a request body schema in the document matches what the route validates', async (t) => {
  const response = await t.context.t.http().get('/api/openapi.json').expect(200);
  const login = response.body.paths['/api/identity/auth/user/login'].post;
  t.deepEqual(login.requestBody.content['application/json'].schema.required, ['email', 'password']);
  t.false(login.requestBody.content['application/json'].schema.additionalProperties);
});
