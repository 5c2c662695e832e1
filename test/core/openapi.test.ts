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

type Parameter = { name: string; in: string; required: boolean; schema: { default?: unknown } };
type OperationDoc = {
  parameters: Parameter[];
  responses: Record<string, unknown>;
  requestBody?: { content: { 'application/json': { schema: { required?: string[] } } } };
};

test('the document holds to the routes: defaults are optional, schema-required is required, chain statuses are documented', async (t) => {
  const response = await t.context.t.http().get('/api/openapi.json').expect(200);
  const paths = response.body.paths as Record<string, Record<string, OperationDoc>>;
  for (const route of t.context.t.app.routes) {
    const operation = paths[openApiPath(`/api${route.path}`)]![route.method.toLowerCase()]!;
    const key = `${route.method} ${route.path}`;
    const query = (route.schemas?.query ?? { properties: {}, required: [] }) as {
      properties: Record<string, { default?: unknown }>;
      required?: string[];
    };
    for (const parameter of operation.parameters.filter((p) => p.in === 'query')) {
      const schemaRequired = (query.required ?? []).includes(parameter.name) && query.properties[parameter.name]?.default === undefined;
      t.is(parameter.required, schemaRequired, `${key} ?${parameter.name}`);
      if (parameter.schema.default !== undefined) t.false(parameter.required, `${key} ?${parameter.name} has a default`);
    }
    const statuses = Object.keys(operation.responses).map(Number);
    if (route.schemas) t.true(statuses.includes(400), `${key} documents 400`);
    if (route.auth !== 'public') t.true(statuses.includes(401), `${key} documents 401`);
    if (route.policy || route.principal) t.true(statuses.includes(403), `${key} documents 403`);
    if (route.schemas?.body) t.true(statuses.includes(413) && statuses.includes(415), `${key} documents 413 and 415`);
    t.true(statuses.includes(route.status ?? 200), `${key} documents its success status`);
  }
});

test('what a handler requires is required in the document, and parameters with defaults are not', async (t) => {
  const response = await t.context.t.http().get('/api/openapi.json').expect(200);
  const create = response.body.paths['/api/available-mcps'].post as OperationDoc;
  t.true(create.requestBody!.content['application/json'].schema.required!.includes('variants'));
  const list = response.body.paths['/api/available-mcps'].get as OperationDoc;
  t.deepEqual(
    list.parameters.filter((p) => p.required).map((p) => p.name),
    [],
  );
  const series = response.body.paths['/api/ai/org-usage/time-series'].get as OperationDoc;
  t.deepEqual(
    series.parameters
      .filter((p) => p.required)
      .map((p) => p.name)
      .sort(),
    ['from', 'to'],
  );
  const login = response.body.paths['/api/identity/auth/user/login'].post as OperationDoc;
  t.truthy(login.responses['429'], 'a rate-limited route documents its 429');
});

test('ids are documented as format uuid with a version-7 pattern, and a v4 UUID is a 400 saying "must be a UUID v7"', async (t) => {
  const response = await t.context.t.http().get('/api/openapi.json').expect(200);
  const document = response.body as {
    paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema: Record<string, unknown> }[] }>>;
  };
  const ids = Object.values(document.paths)
    .flatMap((operations) => Object.values(operations))
    .flatMap((operation) => operation.parameters ?? [])
    // A chat conversation is named by the client (1-128 of [A-Za-z0-9_-], as DefaultChatTransport sends it), not a UUID.
    .filter((parameter) => parameter.in === 'path' && /(^id|Id)$/.test(parameter.name) && parameter.name !== 'conversationId');
  t.true(ids.length >= 10);
  for (const parameter of ids) {
    t.is(parameter.schema.format, 'uuid', parameter.name);
    t.is(
      parameter.schema.pattern,
      '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-7[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$',
      parameter.name,
    );
  }
  const v4 = await t.context.t
    .http()
    .post('/api/identity/auth/client/register')
    .send({ email: 'v4@demo.test', password: 'a-long-password-123', name: 'V4', organizationId: '0b6f4ac1-3c2e-4f0a-9d43-3c1f6a7b2e10' });
  t.is(v4.status, 400);
  t.deepEqual(v4.body.errors, [{ path: ['organizationId'], message: 'must be a UUID v7' }]);
});

test('sort on the catalog list is documented in the bracket form the server reads, one parameter per index and property', async (t) => {
  const response = await t.context.t.http().get('/api/openapi.json').expect(200);
  const operation = response.body.paths['/api/available-mcps'].get as {
    parameters: { name: string; required: boolean; schema: { enum?: string[] } }[];
  };
  const names = operation.parameters.map((parameter) => parameter.name);
  t.false(names.includes('sort'));
  t.deepEqual(
    names.filter((name) => name.startsWith('sort')),
    ['sort[0][field]', 'sort[0][direction]', 'sort[1][field]', 'sort[1][direction]', 'sort[2][field]', 'sort[2][direction]'],
  );
  const field = operation.parameters.find((parameter) => parameter.name === 'sort[0][field]')!;
  t.false(field.required);
  t.deepEqual(field.schema.enum, ['createdAt', 'updatedAt', 'name']);
});

test('security and request media types follow each route auth and body kind: key only, token or key, binary, OTLP, multipart', async (t) => {
  const { body: document } = await t.context.t.http().get('/api/openapi.json').expect(200);
  type Operation = {
    security?: unknown[];
    requestBody?: { content: Record<string, unknown> };
    responses: Record<string, { description: string }>;
  };
  const operation = (path: string, method: string) => document.paths[path][method] as Operation;
  t.like(document.components.securitySchemes, { apiKeyAuth: { type: 'http', scheme: 'bearer' }, bearerAuth: { bearerFormat: 'JWT' } });

  const otlp = operation('/api/otlp/v1/traces', 'post');
  t.deepEqual(otlp.security, [{ apiKeyAuth: [] }]);
  t.deepEqual(Object.keys(otlp.requestBody!.content).sort(), ['application/json', 'application/x-protobuf']);
  t.regex(otlp.responses['401']!.description, /API key with `usage:write`/);
  t.regex(otlp.responses['413']!.description, /over 4194304 bytes, also after inflation/);
  t.regex(otlp.responses['415']!.description, /Content-Encoding gzip or none/);

  const events = operation('/api/ai/org-usage/events', 'post');
  t.deepEqual(events.security, [{ apiKeyAuth: [] }, { bearerAuth: [] }]);
  t.deepEqual(Object.keys(events.requestBody!.content), ['application/json']);
  t.regex(events.responses['415']!.description, /Content-Encoding gzip or deflate or none/);

  const logo = operation('/api/available-mcps/{id}/logo', 'put');
  t.deepEqual(logo.security, [{ bearerAuth: [] }]);
  t.deepEqual(Object.keys(logo.requestBody!.content), ['image/png', 'image/jpeg', 'image/webp']);

  const upload = operation('/api/ai/agents/{agentId}/documents', 'post');
  t.deepEqual(Object.keys(upload.requestBody!.content), ['multipart/form-data', 'application/json']);
  t.deepEqual(upload.requestBody!.content['multipart/form-data'], {
    schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary', maxLength: 10 * 1024 * 1024 } } },
    encoding: { file: { contentType: 'text/plain, text/markdown, text/html, application/pdf' } },
  });
  t.regex(upload.responses['415']!.description, /multipart\/form-data or application\/json/);
});
