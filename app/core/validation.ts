import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { ValidationError, type ValidationIssue } from './errors.ts';
import { inspectInput } from './input-hygiene.ts';
import { UUID_V7_MESSAGE } from './schemas.ts';

// ajv-formats is CommonJS; its default export arrives as the module object under NodeNext.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export function makeAjv(coerceTypes: boolean | 'array', useDefaults = true) {
  const ajv = new Ajv({
    allErrors: true,
    useDefaults,
    coerceTypes,
    discriminator: true,
    strict: true,
    strictTypes: false,
    removeAdditional: false,
  });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
  // Annotation only: properties the handler requires and answers itself (see openapi.ts).
  ajv.addKeyword({ keyword: REQUIRED_BY_HANDLER, schemaType: 'array' });
  return ajv;
}

/**
 * Schema annotation listing the properties that a handler requires but checks itself, because
 * their absence has its own documented status (a catalog entry without `variants` is a 422).
 * The OpenAPI document lists them as `required`.
 */
export const REQUIRED_BY_HANDLER = 'x-required-by-handler';

/** Bodies are JSON and keep their types; query strings and path parameters arrive as text and are coerced. */
const bodyAjv = makeAjv(false);
const textAjv = makeAjv('array');

export type Part = 'body' | 'query' | 'params';

export type Validator = (value: unknown) => unknown;

/** Compiles `schema` for one part of a request now, with the AJV of that part (AJV keeps one compilation per schema object). */
export function compileSchema(part: Part, schema: TSchema): ValidateFunction {
  return (part === 'body' ? bodyAjv : textAjv).compile(schema);
}

/**
 * The check of one part of a request. The returned function answers the value with defaults
 * applied, or throws the documented 400. The schema is compiled once, at the first value: an app
 * starts without compiling the schemas of routes it does not serve (most of a test file's app,
 * about 2 s of CPU a process), and a schema that does not compile fails
 * test/core/route-schemas.test.ts, which compiles every route's. Besides the schema, every value
 * obeys the rules of `inspectInput` (no NUL, finite numbers, well-formed text), checked after
 * AJV's coercion so that `?limit=Infinity` is seen as a number.
 */
export function compileValidator(part: Part, schema: TSchema): Validator {
  let validate: ValidateFunction | undefined;
  const prefix = part === 'body' ? [] : [part];
  return (value) => {
    validate ??= compileSchema(part, schema);
    const valid = validate(value);
    const inspected = inspectInput(value, prefix);
    const key = (issue: ValidationIssue) => issue.path.join('\u0000');
    const hygiene = new Map(inspected.issues.map((issue) => [key(issue), issue]));
    // One issue a path; a NUL is named as such even where a pattern (which excludes it too) says something vaguer.
    const issues: ValidationIssue[] = [];
    for (const issue of [...(valid ? [] : issuesOf(validate.errors ?? [], prefix, schema)), ...inspected.issues]) {
      const chosen = hygiene.get(key(issue)) ?? issue;
      if (!issues.some((known) => key(known) === key(chosen))) issues.push(chosen);
    }
    if (issues.length) throw new ValidationError(issues);
    return inspected.value;
  };
}

/** Reshapes AJV's errors into `{ path, message }` issues: the only place this happens. */
export function issuesOf(errors: ErrorObject[], prefix: string[], schema?: TSchema): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    // A failed `if` only repeats what the failed `then` branch reports.
    if (error.keyword === 'if') continue;
    const issue = issueOf(error, prefix, schema);
    const key = JSON.stringify(issue);
    if (!seen.has(key)) {
      seen.add(key);
      issues.push(issue);
    }
  }
  return issues;
}

function issueOf(error: ErrorObject, prefix: string[], schema?: TSchema): ValidationIssue {
  const path = [...prefix, ...pointerSegments(error.instancePath)];
  switch (error.keyword) {
    case 'required':
      return { path: [...path, String(error.params.missingProperty)], message: 'Required' };
    case 'additionalProperties':
      return { path: [...path, String(error.params.additionalProperty)], message: 'Unrecognized key' };
    case 'enum':
      return { path, message: `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}` };
    case 'const':
      return { path, message: `must be ${JSON.stringify(error.params.allowedValue)}` };
    case 'format':
      return { path, message: formatMessage(String(error.params.format)) };
    case 'discriminator':
      return { path: [...path, String(error.params.tag)], message: discriminatorMessage(error) };
    default: {
      const custom = customMessage(schema, error.schemaPath);
      return { path, message: custom ?? error.message ?? 'is invalid' };
    }
  }
}

function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function formatMessage(format: string): string {
  switch (format) {
    case 'uuid':
      // Every uuid in the API is a v7 id (app/core/schemas.ts); its pattern says the same.
      return UUID_V7_MESSAGE;
    case 'date-time':
      return 'must be an ISO-8601 date-time';
    case 'email':
      return 'must be an email address';
    case 'uri':
      return 'must be an absolute URL';
    default:
      return `must match format "${format}"`;
  }
}

function discriminatorMessage(error: ErrorObject): string {
  return error.params.error === 'mapping' ? 'is not a known variant type' : 'Required';
}

/** A schema may carry `errorMessage: '...'` to replace AJV's generic text for its own keywords. */
function customMessage(schema: TSchema | undefined, schemaPath: string): string | undefined {
  if (!schema) return undefined;
  const segments = pointerSegments(schemaPath.replace(/^#/, ''));
  let node: unknown = schema;
  for (const segment of segments.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  const message = (node as { errorMessage?: unknown } | undefined)?.errorMessage;
  return typeof message === 'string' ? message : undefined;
}
