import { maxHeaderSize } from 'node:http';
import type { TSchema } from '@sinclair/typebox';
import { apiKeyAccessOf, endUserAuthOf, type Route } from './route.ts';
import { NUL_FREE_PATTERN } from './schemas.ts';
import { JsonUploadBody } from './upload-body.ts';
import { REQUIRED_BY_HANDLER } from './validation.ts';

type Json = Record<string, unknown>;

/** Formats whose check refuses NUL already (`uri` does not: its check ends in `[^\\s]*`). */
const NUL_FREE_FORMATS = new Set(['uuid', 'date-time', 'email', 'binary']);

/** Keys whose values are data, not schemas (a `default` object is not walked). */
const DATA_KEYS = new Set(['default', 'examples', 'const', 'enum']);

/**
 * A request schema as documented: every string that the server checks for NUL
 * (app/core/input-hygiene.ts: every request string and object key) says so. A string without
 * pattern, enum, const or NUL-free format gets `NUL_FREE_PATTERN`; one with its own pattern
 * excludes NUL in it (test/core/openapi-strings.test.ts checks every pattern).
 * Objects with free keys get `propertyNames` with the same pattern. Changes `json` in place.
 */
export function withStringRules(json: Json): Json {
  visit(json);
  return json;
}

function visit(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const schema = node as Json;
  if (
    isString(schema) &&
    schema.pattern === undefined &&
    !NUL_FREE_FORMATS.has(schema.format as string) &&
    schema.enum === undefined &&
    schema.const === undefined
  ) {
    schema.pattern = NUL_FREE_PATTERN;
  }
  const freeKeys =
    schema.patternProperties !== undefined || (typeof schema.additionalProperties === 'object' && schema.additionalProperties !== null);
  if (freeKeys && schema.propertyNames === undefined) schema.propertyNames = { pattern: NUL_FREE_PATTERN };
  for (const [key, value] of Object.entries(schema)) {
    if (DATA_KEYS.has(key)) continue;
    if (key === 'properties' || key === 'patternProperties') {
      for (const property of Object.values(value as Json)) visit(property);
    } else {
      visit(value);
    }
  }
}

const isString = (schema: Json) => schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'));

/**
 * Bytes that Node's HTTP parser reads before the body (request line and headers) at most:
 * beyond it the server answers 431 (app/core/client-errors.ts), before any route runs.
 */
export const HEADER_LIMIT_BYTES = maxHeaderSize;

/** What a client needs beside the request target: Host, Authorization with a token, Content-Type, User-Agent. */
export const HEADER_RESERVE_BYTES = 4096;

/**
 * The longest query string (in bytes, percent-encoded) that the documented parameters allow:
 * each code point of a string counted as 12 bytes (4 UTF-8 bytes, each `%XX`), an unbounded
 * string or array as Infinity. A route whose longest query leaves less than
 * `HEADER_RESERVE_BYTES` of the parser's limit documents 431.
 */
export function longestQueryBytes(query: TSchema | undefined): number {
  if (!query) return 0;
  const properties = (query.properties ?? {}) as Record<string, TSchema>;
  let total = 0;
  for (const [name, property] of Object.entries(properties)) {
    if (property.type === 'array') {
      const items = property.items as TSchema;
      const perItem = items.type === 'object' ? objectItemBytes(name, items) : name.length + 2 + valueBytes(items);
      total += (property.maxItems ?? Infinity) * perItem;
    } else {
      total += name.length + 2 + valueBytes(property);
    }
  }
  return total;
}

/** `sort[0][field]=…&sort[0][direction]=…`: one bracket parameter per property. */
function objectItemBytes(name: string, items: TSchema): number {
  const properties = (items.properties ?? {}) as Record<string, TSchema>;
  return Object.entries(properties).reduce((sum, [property, schema]) => sum + name.length + property.length + 12 + valueBytes(schema), 0);
}

function valueBytes(schema: TSchema): number {
  if (schema.enum) return Math.max(...(schema.enum as unknown[]).map((value) => 3 * String(value).length));
  if (schema.const !== undefined) return 3 * String(schema.const).length;
  if (schema.anyOf) return Math.max(...(schema.anyOf as TSchema[]).map(valueBytes));
  switch (schema.type) {
    case 'integer':
    case 'number':
      return 24;
    case 'boolean':
      return 5;
    case 'string':
      if (schema.format === 'uuid') return 36;
      if (schema.format === 'date-time') return 3 * 40;
      return 12 * (schema.maxLength ?? Infinity);
    default:
      return Infinity;
  }
}

/** Whether a route's documented query can reach the parser's limit, so that 431 is documented. */
export const mayExceedHeaderLimit = (query: TSchema | undefined) => longestQueryBytes(query) > HEADER_LIMIT_BYTES - HEADER_RESERVE_BYTES;

/** Plain JSON of a TypeBox schema (drops TypeBox's symbol keys). */
export const plain = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema)) as Json;

/** A request part's schema as documented: plain, with the NUL rule on every string (app/core/openapi-request.ts). */
export const requestSchema = (schema: TSchema): Json => withStringRules(plain(schema));

/**
 * A body schema as documented: properties the handler requires (annotated
 * `x-required-by-handler`, answered with the route's own status when missing) are `required`.
 */
function documentedBody(schema: TSchema): Json {
  const json = requestSchema(schema);
  const byHandler = json[REQUIRED_BY_HANDLER] as string[] | undefined;
  if (byHandler) json.required = [...new Set([...((json.required as string[] | undefined) ?? []), ...byHandler])];
  return json;
}

/** The request body as its declared kind is read (`RouteBody`): its media types and schema. */
export function requestBodyOf(route: Route): Json | undefined {
  const body = route.body;
  if (body?.kind === 'binary') {
    const binary = { schema: { type: 'string', format: 'binary', maxLength: body.limitBytes } };
    return { required: true, description: body.description, content: Object.fromEntries(body.mediaTypes.map((type) => [type, binary])) };
  }
  if (body?.kind === 'otlp') {
    const description = 'An OTLP/HTTP ExportTraceServiceRequest (opentelemetry-proto), in protobuf or in its JSON mapping';
    const bytes = { schema: { type: 'string', format: 'binary', maxLength: body.limitBytes } };
    return {
      required: true,
      description,
      content: { 'application/x-protobuf': bytes, 'application/json': { schema: { type: 'object' } } },
    };
  }
  if (body?.kind === 'multipart') {
    const form = {
      type: 'object',
      required: ['file'],
      properties: { file: { type: 'string', format: 'binary', maxLength: body.limitBytes } },
    };
    const description = 'One file, in the field `file` of a form, or as JSON `{ name, text }`';
    return {
      required: true,
      description,
      content: {
        // The file's accepted types, as OpenAPI names a form part's media types.
        'multipart/form-data': { schema: form, encoding: { file: { contentType: body.mediaTypes.join(', ') } } },
        'application/json': { schema: requestSchema(JsonUploadBody) },
      },
    };
  }
  if (route.schemas?.body) return { required: true, content: { 'application/json': { schema: documentedBody(route.schemas.body) } } };
  return undefined;
}

/** The credentials a route takes (`RouteAuth`): an access token, an API key, or either. */
export function securityOf(route: Route): Json[] | undefined {
  const apiKey = apiKeyAccessOf(route.auth);
  if (apiKey) return apiKey.keyOnly ? [{ apiKeyAuth: [] }] : [{ apiKeyAuth: [] }, { bearerAuth: [] }];
  if (endUserAuthOf(route.auth)) return [{ endUserSession: [] }];
  return route.auth === 'jwt' ? [{ bearerAuth: [] }] : undefined;
}

/** The two credentials of `RouteAuth`: an access token and an API key, both bearer tokens. */
export const SECURITY_SCHEMES = {
  bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
  apiKeyAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'agk_ API key',
    description: 'An API key of the organization (`Authorization: Bearer agk_...`), carrying the scope the route names',
  },
  endUserSession: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT (type end_user)',
    description: "An end user's session token of an agent's web channel (`POST /api/public/sessions`); the public routes take nothing else",
  },
};
