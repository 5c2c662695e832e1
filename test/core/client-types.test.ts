import test from 'ava';
import { Type } from '@sinclair/typebox';
import { CLIENT_TYPES_FILE, currentClientTypes, renderClientTypes, routeKey } from '../../bin/docs/client-types.ts';
import { limitsOf } from '../../bin/docs/schema-limits.ts';
import { printType } from '../../bin/docs/schema-type.ts';
import { StringEnum } from '../../app/core/schemas.ts';
import { areaRoutes } from '../../app/routes.ts';

const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
/** The printed type on one line, for comparing without Prettier's layout. */
const printed = (schema: unknown, direction: 'request' | 'response' = 'response') =>
  printType(plain(schema), direction).replace(/\s*\n\s*/g, ' ');

test("dashboard/src/api-types.generated.ts is the one generated from the routes' declarations (npm run docs:tables)", async (t) => {
  t.is(currentClientTypes(), await renderClientTypes(areaRoutes), `${CLIENT_TYPES_FILE} is stale: run npm run docs:tables`);
});

test('the generated file has one entry per declared route, keyed by method and path', async (t) => {
  const text = await renderClientTypes(areaRoutes);
  for (const route of areaRoutes) t.true(text.includes(`'${routeKey(route)}':`), routeKey(route));
  t.regex(text, /'PATCH \/ai\/agents\/:agentId': \{\s*params: \{\s*agentId: string;/);
});

test('a changed response schema shows in the generated file, so a stale file fails the first test', async (t) => {
  const changed = areaRoutes.map((route) =>
    routeKey(route) === 'GET /ai/models'
      ? { ...route, responses: { 200: { description: 'x', schema: Type.Object({ extraField: Type.Boolean() }) } } }
      : route,
  );
  const text = await renderClientTypes(changed);
  t.not(text, await renderClientTypes(areaRoutes));
  t.regex(text, /'GET \/ai\/models': \{\s*response: \{\s*extraField: boolean;/);
});

test('an answer property is optional exactly when the schema does not require it; null comes from a union', (t) => {
  const schema = Type.Object({ id: Type.String(), note: Type.Optional(Type.Union([Type.String(), Type.Null()])), n: Type.Integer() });
  t.is(printed(schema), '{ id: string; note?: string | null; n: number; }');
});

test('enums, consts and string-enum unions print as literal unions; arrays bracket a union element', (t) => {
  t.is(printed(StringEnum(['always_allow', 'needs_approval', 'blocked'] as const)), '"always_allow" | "needs_approval" | "blocked"');
  t.is(printed(Type.Literal(80)), '80');
  t.is(printed(Type.Array(Type.Union([Type.String(), Type.Null()]))), '(string | null)[]');
  t.is(printed(Type.Union([StringEnum(['a', 'b'] as const), Type.Null()])), '"a" | "b" | null');
});

test('records, unknown values, intersections and discriminated oneOf print as TypeScript says them', (t) => {
  t.is(printed(Type.Record(Type.String(), Type.Unknown())), 'Record<string, unknown>');
  t.is(printed(Type.Object({})), 'Record<string, never>');
  t.is(printed(Type.Intersect([Type.Object({ a: Type.String() }), Type.Object({ b: Type.Number() })])), '{ a: string; } & { b: number; }');
  t.is(
    printed({ type: 'object', required: ['type'], properties: { type: { type: 'string' } }, oneOf: [{ const: 'x' }, { const: 'y' }] }),
    '{ type: string; } & ("x" | "y")',
  );
});

test('in a request, a property with a server default may be left out and one the handler requires must be sent', (t) => {
  const body = { type: 'object', properties: { limit: { type: 'integer', default: 50 }, name: { type: 'string' } }, required: ['limit'] };
  t.is(printed(body, 'request'), '{ limit?: number; name?: string; }');
  t.is(printed(body, 'response'), '{ limit: number; name?: string; }');
  t.is(printed({ ...body, 'x-required-by-handler': ['name'] }, 'request'), '{ limit?: number; name: string; }');
});

test('a property description becomes its doc comment, and a keyword the printer does not know fails the generator', (t) => {
  t.is(printed(Type.Object({ a: Type.String({ description: 'says */ this' }) })), '{ /** says *\\/ this */ a: string; }');
  t.throws(() => printed({ type: 'object', not: { type: 'string' } }), { message: /keyword\(s\) not/ });
  t.throws(() => printed({ $ref: '#/x' }), { message: /\$ref/ });
});

test("apiLimits names each request field's bounds and default by its path, an array's elements as []", (t) => {
  const body = Type.Object({
    terms: Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: '^x' }), { maxItems: 200 }),
    nested: Type.Object({ quota: Type.Integer({ minimum: 1, maximum: 10_000, default: 50 }), free: Type.String() }),
    model: Type.Union([Type.String({ maxLength: 200 }), Type.Null()]),
  });
  t.deepEqual(limitsOf(plain(body)), {
    terms: { maxItems: 200 },
    'terms[]': { minLength: 1, maxLength: 100 },
    'nested.quota': { minimum: 1, maximum: 10_000, default: 50 },
    model: { maxLength: 200 },
  });
});

test('a bound the branches of a union disagree on is left out of apiLimits, the bounds they share stay', (t) => {
  const logo = Type.Union([Type.String({ minLength: 1, maxLength: 2048 }), Type.String({ minLength: 1, maxLength: 400_000 })]);
  t.deepEqual(limitsOf(plain(Type.Object({ logo }))), { logo: { minLength: 1 } });
});

test('the generated apiLimits carry the limits the console shows: the channel and the guardrails', async (t) => {
  const text = await renderClientTypes(areaRoutes);
  t.regex(text, /'PUT \/ai\/agents\/:agentId\/channel': \{\s*body: \{\s*allowedOrigins: \{ maxItems: 20 \}/);
  t.regex(text, /'guardrails\.blockedTerms\[\]': \{ minLength: 1, maxLength: 100 \}/);
  t.regex(text, /'guardrails\.refusal': \{ minLength: 1, maxLength: 500 \}/);
});

test("a route taking a file gives its largest size and media types in apiLimits' upload", async (t) => {
  const text = await renderClientTypes(areaRoutes);
  t.regex(
    text,
    /'POST \/ai\/agents\/:agentId\/documents': \{\s*upload: \{ maxBytes: 10485760, mediaTypes: \['text\/plain', 'text\/markdown', 'text\/html', 'application\/pdf'\] \}/,
  );
});
