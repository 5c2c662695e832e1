import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest from 'ava';
import fc from 'fast-check';
import { EMAIL_PATTERN, NUL_FREE_PATTERN } from '../../app/core/schemas.ts';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest, { seed: false });

type Json = Record<string, unknown>;
type Operation = { parameters?: { name: string; in: string; schema: Json }[]; requestBody?: { content: Record<string, { schema: Json }> } };

const operationsOf = (document: { paths: Record<string, Record<string, Operation>> }) =>
  Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({ path, method, operation })),
  );

/** Every string schema (and every free-key object) of a request part. */
function requestStrings(schema: unknown, found: Json[] = []): Json[] {
  if (Array.isArray(schema)) schema.forEach((item) => requestStrings(item, found));
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return found;
  const node = schema as Json;
  if (node.type === 'string') found.push(node);
  for (const [key, value] of Object.entries(node))
    if (!['default', 'examples', 'enum', 'const'].includes(key)) requestStrings(value, found);
  return found;
}

test('every request string in the document refuses NUL, as the server does: a pattern, a format, or a fixed value', async (t) => {
  const { body: document } = await t.context.t.http().get('/api/openapi.json').expect(200);
  const strings = operationsOf(document).flatMap(({ operation }) => [
    ...(operation.parameters ?? []).flatMap((parameter) => requestStrings(parameter.schema)),
    ...Object.values(operation.requestBody?.content ?? {}).flatMap((media) => requestStrings(media.schema)),
  ]);
  t.true(strings.length > 100);
  const patterns = new Set<string>();
  for (const schema of strings) {
    if (schema.enum !== undefined || schema.const !== undefined) continue;
    if (typeof schema.format === 'string' && schema.pattern === undefined) {
      t.true(['uuid', 'date-time', 'binary'].includes(schema.format), JSON.stringify(schema));
      continue;
    }
    t.is(typeof schema.pattern, 'string', JSON.stringify(schema));
    patterns.add(schema.pattern as string);
  }
  t.true(patterns.has(NUL_FREE_PATTERN));
  // A NUL put anywhere into a string that a pattern accepts makes the pattern refuse it.
  for (const pattern of patterns) {
    const regex = new RegExp(pattern, 'u');
    t.notThrows(() => {
      fc.assert(
        fc.property(fc.stringMatching(new RegExp(pattern)), fc.nat(), (text, at) => {
          const index = at % (text.length + 1);
          return !regex.test(`${text.slice(0, index)}\u0000${text.slice(index)}`);
        }),
        { numRuns: 50, seed: 23 },
      );
    }, pattern);
  }
  const catalog = document.paths['/api/available-mcps'].post.requestBody.content['application/json'].schema;
  t.truthy(JSON.stringify(catalog).includes('propertyNames') || !JSON.stringify(catalog).includes('patternProperties'));
});

test('emails are documented with a pattern that wants a dot in the domain, as the server checks', async (t) => {
  const { body: document } = await t.context.t.http().get('/api/openapi.json').expect(200);
  const emails = operationsOf(document)
    .flatMap(({ operation }) => Object.values(operation.requestBody?.content ?? {}).flatMap((media) => requestStrings(media.schema)))
    .filter((schema) => schema.format === 'email');
  t.true(emails.length >= 5);
  for (const schema of emails) t.is(schema.pattern, EMAIL_PATTERN);
  const pattern = new RegExp(EMAIL_PATTERN);
  for (const [email, accepted] of [
    ['owner@demo.test', true],
    ['A.B+tag@Sub.Example.ORG', true],
    ['user@localhost', false],
    ['.user@demo.test', false],
    ['user@demo..test', false],
  ] as const) {
    t.is(pattern.test(email), accepted, email);
    const answer = await t.context.t.http().post('/api/identity/auth/user/check-email').send({ email });
    t.is(answer.status, accepted ? 200 : 400, email);
    if (!accepted) t.deepEqual(answer.body.errors, [{ path: ['email'], message: 'must be an email address' }]);
  }
});

test('a NUL in a string is a 400 naming the field', async (t) => {
  const answer = await t.context.t.http().post('/api/identity/auth/user/login').send({ email: 'owner@demo.test', password: 'a\u0000b' });
  t.is(answer.status, 400);
  t.deepEqual(answer.body.errors, [{ path: ['password'], message: 'must not contain the NUL character (U+0000)' }]);
});

test('431 is documented on the MCP OAuth callback, and a query within its documented lengths can get it', async (t) => {
  const { body: document } = await t.context.t.http().get('/api/openapi.json').expect(200);
  const callback = document.paths['/api/ai/mcp-oauth/callback'].get;
  t.deepEqual(Object.keys(callback.responses['431'].content['application/json'].schema.properties).sort(), ['message', 'statusCode']);
  t.is(document.paths['/api/ai/agents'].get.responses['431'], undefined);
  // state (512) and code (4096) at their maximum lengths, in a 4-byte character: 55 KB percent-encoded.
  const query = `state=${encodeURIComponent('😀'.repeat(512))}&code=${encodeURIComponent('😀'.repeat(4096))}`;
  const server = t.context.t.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const sent = httpRequest({ port, host: '127.0.0.1', path: `/api/ai/mcp-oauth/callback?${query}` }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      sent.on('error', reject);
      sent.end();
    });
    t.is(answer.status, 431);
    t.deepEqual(JSON.parse(answer.body), { statusCode: 431, message: 'Request header fields too large' });
  } finally {
    server.close();
  }
});
