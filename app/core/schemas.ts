import { Type, type TProperties, type ObjectOptions, type StringOptions } from '@sinclair/typebox';
import { z } from 'zod';
import { CORE_RATE_LIMIT_EXCEEDED } from './errors.ts';

/** An object that rejects unknown keys (the 400 names each at its path). */
export const StrictObject = <T extends TProperties>(properties: T, options: ObjectOptions = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

/** A string enum as one JSON Schema `enum` (one clear 400 message, unlike a union of literals); `values` is the one `as const` list. */
export const StringEnum = <const T extends readonly string[]>(values: T, options: { default?: T[number]; description?: string } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/**
 * The route schema of a row answered as it is, derived from the row's zod schema in sql/ so the
 * shape is written once (ADR 0106). Knows the kinds rows use; any other throws at start.
 */
export const fromRow = <T extends z.ZodTypeAny>(row: T) => Type.Unsafe<z.output<T>>(jsonSchemaOf(row));

function jsonSchemaOf(schema: z.ZodTypeAny): Record<string, unknown> {
  if (schema instanceof z.ZodString) return { type: 'string' };
  if (schema instanceof z.ZodBoolean) return { type: 'boolean' };
  if (schema instanceof z.ZodNumber) return { type: schema.isInt ? 'integer' : 'number' };
  if (schema instanceof z.ZodDate) return { type: 'string', format: 'date-time' };
  if (schema instanceof z.ZodEnum) return { type: 'string', enum: [...(schema.options as string[])] };
  if (schema instanceof z.ZodNullable) return { anyOf: [jsonSchemaOf(schema.unwrap() as z.ZodTypeAny), { type: 'null' }] };
  if (schema instanceof z.ZodArray) return { type: 'array', items: jsonSchemaOf(schema.element as z.ZodTypeAny) };
  if (schema instanceof z.ZodObject) {
    const shape = schema.shape as Record<string, z.ZodTypeAny>;
    const entries = Object.entries(shape);
    return {
      type: 'object',
      properties: Object.fromEntries(
        entries.map(([key, field]) => [key, jsonSchemaOf(field instanceof z.ZodOptional ? field.unwrap() : field)]),
      ),
      required: entries.filter(([, field]) => !field.isOptional()).map(([key]) => key),
    };
  }
  throw new Error(`fromRow: no route schema for a ${schema.constructor.name}`);
}

/*
 * The text rules every request schema shares (the one place they are written; issue 27):
 * UUID v7 ids, NUL-free strings, email addresses as the validator reads them.
 */

/** The hex digits of an RFC 9562 version 7 UUID (version nibble 7, variant 10xx), any case, unanchored. */
export const UUID_V7 = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-7[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}';
/** The same in lowercase only (the names of stored files, app/mcp-catalog/logo-routes.ts). */
export const UUID_V7_LOWERCASE = '[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';
/** Any RFC 9562 UUID (any version, variant 10xx), any case, anchored: an id checked before it reaches a uuid column. */
const ANY_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export const isUuid = (value: unknown): value is string => typeof value === 'string' && ANY_UUID.test(value);
/** The pattern generic clients read beside `format: uuid`. */
export const UUID_V7_PATTERN = `^${UUID_V7}$`;
export const UUID_V7_MESSAGE = 'must be a UUID v7';

/**
 * No U+0000 anywhere: PostgreSQL text and jsonb cannot hold it, and every request string is
 * checked for it (app/core/input-hygiene.ts). The OpenAPI document adds this pattern to every
 * request string that has no pattern or format of its own (app/core/openapi-request.ts); a
 * string with its own pattern excludes NUL in it, as the patterns below do.
 */
export const NUL_FREE_PATTERN = '^[^\\u0000]*$';
/** At least one character that is neither white space nor NUL, and no NUL (names, tags). */
export const NON_BLANK_PATTERN = '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$';
/** Single-line text: no control character (C0, including NUL, and DEL). */
export const LINE_CHAR = '[^\\u0000-\\u001f\\u007f]';
/**
 * One line as a person reads it, for what one party writes and another reads (an end user's name
 * in the staff's inbox and mail): no control character (C0, DEL, C1), no line or paragraph
 * separator, no bidirectional embedding, override or isolate (text shown in another order).
 */
const UNREADABLE = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
export const READABLE_LINE_PATTERN = `^[^${UNREADABLE}]*$`;
const UNREADABLE_RUNS = new RegExp(`[${UNREADABLE}]+`, 'gu');
/** `text` made one readable line: each run of what `READABLE_LINE_PATTERN` refuses becomes one space. */
export const readableLine = (text: string) => text.replace(UNREADABLE_RUNS, ' ');
/** Single-line text with at least one character that is not white space (`\\S` alone would let NUL through). */
export const NON_BLANK_LINE_PATTERN = `^${LINE_CHAR}*[^\\s\\u0000-\\u001f\\u007f]${LINE_CHAR}*$`;

/**
 * An email address as the server's check (ajv-formats' `email`, case-insensitive) reads it: a
 * dot-atom local part, `@`, and a domain of at least two dot-separated labels. `format: email`
 * alone allows a dotless domain, so generic clients read this pattern beside it.
 */
export const EMAIL_PATTERN =
  "^[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+)*" +
  '@(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?\\.)+[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$';
export const EMAIL_MESSAGE = 'must be an email address';

/** An email address: `format: email` and the pattern that says the domain has a dot. */
export const EmailAddress = (options: StringOptions = {}) =>
  Type.String({ format: 'email', pattern: EMAIL_PATTERN, errorMessage: EMAIL_MESSAGE, ...options });

/** A UUID v7 identifier: `format: uuid` (which every validator knows) narrowed to version 7 by a pattern. */
export const Uuid = (options: StringOptions = {}) =>
  Type.String({ format: 'uuid', pattern: UUID_V7_PATTERN, errorMessage: UUID_V7_MESSAGE, ...options });

/** ISO-8601 UTC date-time with milliseconds, as printed by Date#toJSON. */
export const DateTime = (options: StringOptions = {}) => Type.String({ format: 'date-time', ...options });

/** The path parameter `name` as a UUID v7. */
export const UuidParam = <K extends string>(name: K) => StrictObject({ [name]: Uuid() } as Record<K, ReturnType<typeof Uuid>>);

export const ErrorBody = Type.Object({ statusCode: Type.Integer(), message: Type.String() }, { $id: undefined });

export const CodedErrorBody = Type.Object({
  statusCode: Type.Integer(),
  errorCode: Type.String(),
  message: Type.Object({ en: Type.String(), es: Type.String() }),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export const ValidationErrorBody = Type.Object({
  statusCode: Type.Literal(400),
  message: Type.String(),
  errors: Type.Array(Type.Object({ path: Type.Array(Type.String()), message: Type.String() })),
});

/** The 429 body of app/core/rate-limit-body.ts (`CORE.RATE_LIMIT_EXCEEDED`, the wait in seconds; docs/interface.md). */
export const RateLimitedBody = Type.Object({
  statusCode: Type.Literal(429),
  errorCode: Type.Literal(CORE_RATE_LIMIT_EXCEEDED.code),
  message: Type.Object({ en: Type.String(), es: Type.String() }),
  metadata: Type.Object({ retryAfterSeconds: Type.Integer({ minimum: 1 }) }),
});
