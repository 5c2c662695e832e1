import { Type, type TProperties, type ObjectOptions, type StringOptions } from '@sinclair/typebox';

/** An object that rejects unknown keys (the 400 names each at its path). */
export const StrictObject = <T extends TProperties>(properties: T, options: ObjectOptions = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

/** RFC 9562 version 7 (version nibble 7, variant 10xx), any case: the pattern generic clients read beside `format: uuid`. */
export const UUID_V7_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-7[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$';
export const UUID_V7_MESSAGE = 'must be a UUID v7';

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

/** A status answered by more than one cause: a coded error from one, a plain one from another. */
export const CodedOrPlainErrorBody = Type.Union([CodedErrorBody, ErrorBody]);

/** The 429 body of app/core/rate-limit-body.ts (contract: `CORE.RATE_LIMIT_EXCEEDED`, wait in seconds). */
export const RateLimitedBody = Type.Object({
  statusCode: Type.Literal(429),
  errorCode: Type.Literal('CORE.RATE_LIMIT_EXCEEDED'),
  message: Type.Object({ en: Type.String(), es: Type.String() }),
  metadata: Type.Object({ retryAfterSeconds: Type.Integer({ minimum: 1 }) }),
});
