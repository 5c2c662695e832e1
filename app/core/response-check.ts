import type { TSchema } from '@sinclair/typebox';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Route } from './route.ts';
import { makeAjv } from './validation.ts';

/**
 * An answer that does not match its route's declared schema. Thrown only when `NODE_ENV=test`;
 * the error middleware answers it with a bare 500 and `app.on('error')` logs this message, which
 * names the route and each AJV path, so every test that touches a drifted route fails.
 */
export class ResponseSchemaMismatch extends Error {
  readonly route: string;
  readonly issues: Array<{ path: string; message: string }>;
  constructor(route: string, issues: Array<{ path: string; message: string }>) {
    super(
      `${route} answered a body that does not match its declared schema: ${issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ')}`,
    );
    this.route = route;
    this.issues = issues;
    this.name = 'ResponseSchemaMismatch';
  }
}

/** Answers keep their JSON types: no coercion, no defaults filled in. */
const responseAjv = makeAjv(false, false);

/**
 * A copy of `schema` in which every object that does not say otherwise rejects unknown keys, so a
 * column a handler forgot to drop fails as surely as a missing one. Objects under `allOf`, and
 * objects whose keys are completed by `oneOf`/`anyOf`/`allOf` branches, are left open (their
 * branches are closed instead).
 */
export function closedCopy(schema: unknown, insideAllOf = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => closedCopy(item, insideAllOf));
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    copy[key] = key === 'allOf' ? closedCopy(value, true) : key === 'properties' ? closeEach(value) : closedCopy(value);
  }
  const composed = 'oneOf' in copy || 'anyOf' in copy || 'allOf' in copy;
  if (copy.type === 'object' && copy.properties && !('additionalProperties' in copy) && !composed && !insideAllOf) {
    copy.additionalProperties = false;
  }
  return copy;
}

const closeEach = (properties: unknown) =>
  Object.fromEntries(Object.entries(properties as Record<string, unknown>).map(([name, value]) => [name, closedCopy(value)]));

/** One compilation per declared schema, shared by every app of the process. */
const compiled = new WeakMap<TSchema, ValidateFunction>();

/** Compiles the closed copy of a declared answer schema now (or finds it compiled). */
export function compileResponseSchema(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = responseAjv.compile(closedCopy(JSON.parse(JSON.stringify(schema))) as TSchema);
    compiled.set(schema, validate);
  }
  return validate;
}

/**
 * The check of a route's success answer against its declared schema (closed, see `closedCopy`),
 * compiled at the route's first answer. Returns undefined when the success status declares no
 * schema. The answer is checked as it will be sent: after a JSON round trip (`toJSON` applied); a
 * Buffer is JSON serialized ahead of time (the analytics cache) and is parsed.
 */
export function compileResponseCheck(route: Route, status: number): ((body: unknown) => void) | undefined {
  const schema = route.responses[status]?.schema;
  if (!schema) return undefined;
  const name = `${route.method} /api${route.path}`;
  return (body) => {
    const validate = compileResponseSchema(schema);
    const sent: unknown = Buffer.isBuffer(body)
      ? JSON.parse(body.toString('utf8'))
      : body === undefined
        ? undefined
        : JSON.parse(JSON.stringify(body));
    if (validate(sent)) return;
    throw new ResponseSchemaMismatch(name, (validate.errors ?? []).map(issueOf));
  };
}

function issueOf(error: ErrorObject): { path: string; message: string } {
  if (error.keyword === 'additionalProperties') {
    return { path: `${error.instancePath}/${String(error.params.additionalProperty)}`, message: 'is not declared' };
  }
  return { path: error.instancePath, message: error.message ?? 'is invalid' };
}
