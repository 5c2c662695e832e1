import test from 'ava';
import { compileResponseSchema } from '../../app/core/response-check.ts';
import { compileSchema, type Part } from '../../app/core/validation.ts';
import { areaRoutes } from '../../app/routes.ts';

// The app compiles a route's schemas at its first request (app/core/validation.ts), so a schema
// AJV refuses would fail only there: this compiles every one of them now.

const parts: Part[] = ['params', 'query', 'body'];

test('every route declares request schemas the strict AJV of its part compiles', (t) => {
  const refused: string[] = [];
  let compiled = 0;
  for (const route of areaRoutes) {
    for (const part of parts) {
      const schema = route.schemas?.[part];
      if (!schema) continue;
      try {
        compileSchema(part, schema);
        compiled += 1;
      } catch (error) {
        refused.push(`${route.method} ${route.path} ${part}: ${(error as Error).message}`);
      }
    }
  }
  t.deepEqual(refused, []);
  t.true(compiled > 100, `${compiled} request schemas compiled`);
});

test('every declared answer schema compiles closed, as the test-mode answer check uses it', (t) => {
  const refused: string[] = [];
  let compiled = 0;
  for (const route of areaRoutes) {
    for (const [status, response] of Object.entries(route.responses)) {
      if (!response.schema) continue;
      try {
        compileResponseSchema(response.schema);
        compiled += 1;
      } catch (error) {
        refused.push(`${route.method} ${route.path} ${status}: ${(error as Error).message}`);
      }
    }
  }
  t.deepEqual(refused, []);
  t.true(compiled > 100, `${compiled} answer schemas compiled`);
});

test('a schema AJV refuses is named by the check, not passed over', (t) => {
  t.throws(() => compileSchema('body', { type: 'object', properties: {}, unknownKeyword: true } as never));
});
