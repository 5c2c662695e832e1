import { maxHeaderSize } from 'node:http';
import type { TSchema } from '@sinclair/typebox';
import { NUL_FREE_PATTERN } from './schemas.ts';

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
