import fc from 'fast-check';
import type { JsonSchema } from './document.ts';

/**
 * What the fuzzer knows beyond the schema: ids (from the id pools), strings it has seen under a
 * field name (refresh tokens), and a tag of the caller that keeps the accounts it invents apart
 * from other callers' (so that one agency's accounts are never touched by another's requests).
 */
export type Hints = {
  uuid: (name: string) => fc.Arbitrary<string>;
  known: (name: string) => string[];
  tag: string;
};

/** Passwords that sometimes are right: the demo one, and the one the fuzzer registers with. */
export const FUZZ_PASSWORD = 'fuzz-password-1';

/** The tag of owner@other.test, the principal whose agency must not change while others fuzz. */
export const PROTECTED_TAG = 'ownerother';

const DATE_MIN = new Date('2020-01-01T00:00:00.000Z');
const DATE_MAX = new Date('2027-12-31T00:00:00.000Z');

const dateTime = fc.date({ min: DATE_MIN, max: DATE_MAX, noInvalidDate: true }).map((date) => date.toISOString());

/**
 * Demo accounts and invented ones. Other Agency's owner (who fuzzes first, alone) only uses its
 * own address: a client account it registers under another's address would be another
 * principal's to verify later, and a sign-in of its address by another writes a session row.
 */
const emailFor = (tag: string) =>
  fc.oneof(
    tag === PROTECTED_TAG ? fc.constant('owner@other.test') : fc.constantFrom('owner@demo.test', 'member@demo.test', 'admin@platform.test'),
    fc.nat(50).map((n) => `fuzz-${tag}-${n}@fuzz.test`),
  );

const url = fc.oneof(
  // Loopback http passes the development URL policy (the fuzzed app runs as development); no DNS here.
  fc.constantFrom(
    'https://mcp.example.com/mcp',
    'http://127.0.0.1:9/mcp',
    'http://localhost:9/mcp',
    'https://127.0.0.1/mcp',
    'http://169.254.169.254/latest',
  ),
  fc.webUrl(),
);

function stringOf(schema: JsonSchema, name: string, hints: Hints): fc.Arbitrary<string> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as string[]));
  const format = schema.format as string | undefined;
  if (format === 'uuid' || format === 'uuid-v7') return hints.uuid(name);
  if (format === 'date-time') return dateTime;
  if (format === 'email') return emailFor(hints.tag);
  if (format === 'uri' || name === 'url') return url;
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = Math.min((schema.maxLength as number | undefined) ?? 40, minLength + 40);
  if (/password/i.test(name)) {
    return fc.oneof(
      fc.constantFrom('demo-password-1', FUZZ_PASSWORD),
      fc.string({ minLength: Math.max(minLength, 8), maxLength: Math.max(maxLength, 12) }),
    );
  }
  const known = hints.known(name);
  // Drawn text obeys the schema's pattern beside known values too: an id drawn as '' or with a '/'
  // would never reach its route (a path segment is never empty), so it would test nothing.
  const drawn = patternedString(schema, minLength) ?? fc.string({ minLength, maxLength, unit: 'grapheme' });
  if (known.length) return fc.oneof(fc.constantFrom(...known), drawn);
  return drawn;
}

/** Strings matching the schema's `pattern`, or undefined without one (or one fast-check cannot read). */
function patternedString(schema: JsonSchema, minLength: number): fc.Arbitrary<string> | undefined {
  if (typeof schema.pattern !== 'string') return undefined;
  try {
    const pattern = new RegExp(schema.pattern, 'u');
    return fc
      .stringMatching(pattern)
      .filter((text) => text.length >= minLength && text.length <= ((schema.maxLength as number | undefined) ?? Infinity));
  } catch {
    // A pattern fast-check cannot read: plain strings, which the server may refuse.
    return undefined;
  }
}

function integerOf(schema: JsonSchema): fc.Arbitrary<number> {
  const min = (schema.minimum as number | undefined) ?? -1_000;
  const max = (schema.maximum as number | undefined) ?? Math.max(min + 1_000, 1_000);
  const low = Math.max(min, Number.MIN_SAFE_INTEGER);
  const high = Math.min(max, Number.MAX_SAFE_INTEGER);
  // Mostly near the minimum: a page number of 1 to 5 lists something, page 73,000 lists nothing.
  return fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: low, max: Math.min(high, low + 4) }) },
    { weight: 1, arbitrary: fc.integer({ min: low, max: high }) },
  );
}

/**
 * An arbitrary of values meant to satisfy `schema` (best effort: patterns and cross-field rules
 * may still be refused, which the server must answer with a documented 4xx).
 */
export function arbitraryOf(schema: JsonSchema, hints: Hints, name = '', depth = 0): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.oneOf ?? schema.anyOf)) {
    const branches = (schema.oneOf ?? schema.anyOf) as JsonSchema[];
    return fc.oneof(...branches.map((branch) => arbitraryOf(branch, hints, name, depth + 1)));
  }
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  switch (schema.type) {
    case 'string':
      return stringOf(schema, name, hints);
    case 'integer':
      return integerOf(schema);
    case 'number':
      return fc.double({
        min: (schema.minimum as number | undefined) ?? -1e6,
        max: (schema.maximum as number | undefined) ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = (schema.items as JsonSchema | undefined) ?? {};
      const minLength = (schema.minItems as number | undefined) ?? 0;
      const maxLength = Math.min((schema.maxItems as number | undefined) ?? 3, minLength + 3);
      if (depth > 6) return fc.constant([]);
      return schema.uniqueItems
        ? fc.uniqueArray(arbitraryOf(items, hints, name, depth + 1), { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(arbitraryOf(items, hints, name, depth + 1), { minLength, maxLength });
    }
    case 'object':
      return objectOf(schema, hints, depth);
    default:
      return fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null));
  }
}

function objectOf(schema: JsonSchema, hints: Hints, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set([
    ...((schema.required as string[] | undefined) ?? []),
    ...((schema['x-required-by-handler'] as string[] | undefined) ?? []),
  ]);
  if (depth > 6) return fc.constant({});
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, property] of Object.entries(properties)) record[key] = arbitraryOf(property, hints, key, depth + 1);
  if (Object.keys(record).length === 0) {
    return schema.additionalProperties === false
      ? fc.constant({})
      : fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 }), { maxKeys: 3 });
  }
  // Optional fields often come together (a URL with its transport): sometimes all are sent.
  return fc.oneof(
    { weight: 3, arbitrary: fc.record(record, { requiredKeys: [...required].filter((key) => key in record) }) },
    { weight: 1, arbitrary: fc.record(record) },
  );
}
