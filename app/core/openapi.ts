import type { TSchema } from '@sinclair/typebox';
import {
  HEADER_LIMIT_BYTES,
  mayExceedHeaderLimit,
  plain,
  requestBodyOf,
  requestSchema,
  SECURITY_SCHEMES,
  securityOf,
} from './openapi-request.ts';
import { acceptedEncodings } from './body-readers.ts';
import { apiKeyAccessOf, describePolicy, endUserAuthOf, fullPath, type Route } from './route.ts';
import { resourceScopeOf } from './route-scope.ts';
import { CORE_IDEMPOTENCY_KEY_IN_FLIGHT, CORE_IDEMPOTENCY_KEY_REUSED, CORE_RATE_LIMIT_EXCEEDED, type ErrorCode } from './errors.ts';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_PATTERN, IDEMPOTENT_REPLAYED_HEADER } from './idempotency.ts';
import { CodedErrorBody, ErrorBody, RateLimitedBody, ValidationErrorBody } from './schemas.ts';

type Json = Record<string, unknown>;

/** `/api/ai/agents/:agentId` -> `/api/ai/agents/{agentId}`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function parametersOf(location: 'path' | 'query', schema: TSchema | undefined): Json[] {
  if (!schema) return [];
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  const required = new Set<string>((schema.required as string[] | undefined) ?? []);
  // A parameter with a default may be left out: AJV fills it in, so it is not `required`.
  return Object.entries(properties).flatMap(([name, property]) =>
    location === 'query' && isArrayOfObjects(property)
      ? bracketParameters(name, property)
      : [
          {
            name,
            in: location,
            required: location === 'path' || (required.has(name) && property.default === undefined),
            schema: requestSchema(property),
            ...(property.description ? { description: property.description } : {}),
          },
        ],
  );
}

const isArrayOfObjects = (schema: TSchema) =>
  schema.type === 'array' && (schema.items as TSchema | undefined)?.type === 'object' && typeof schema.maxItems === 'number';

/**
 * A query array of objects (`sort`) as the server reads it, `sort[0][field]=name&sort[0][direction]=desc`:
 * one optional parameter per index and property, since OpenAPI defines no wire form for an
 * array of objects and generic clients would otherwise send something else.
 */
function bracketParameters(name: string, schema: TSchema): Json[] {
  const items = schema.items as TSchema;
  const properties = (items.properties ?? {}) as Record<string, TSchema>;
  const required = new Set<string>((items.required as string[] | undefined) ?? []);
  const parameters: Json[] = [];
  for (let index = 0; index < (schema.maxItems as number); index++) {
    for (const [property, propertySchema] of Object.entries(properties)) {
      parameters.push({
        name: `${name}[${index}][${property}]`,
        in: 'query',
        required: false,
        schema: requestSchema(propertySchema),
        description:
          `Item ${index} of \`${name}\`, property \`${property}\` (bracket form, read with indices from 0).` +
          (required.has(property) ? ` Required when any \`${name}[${index}][…]\` is given.` : ''),
      });
    }
  }
  return parameters;
}

const envelope = (description: string, schema: TSchema): Json => ({
  description,
  content: { 'application/json': { schema: plain(schema) } },
});

/** The coded error envelope of one status, its `errorCode` narrowed to the codes listed. */
function codedEnvelope(description: string, codes: readonly string[]): Json {
  const schema = plain(CodedErrorBody);
  (schema.properties as Json).errorCode = { type: 'string', enum: [...codes] };
  return { description, content: { 'application/json': { schema } } };
}

/** Adds `addition` to a status that may already be answered otherwise: either body, both descriptions. */
function addResponse(responses: Record<string, Json>, status: string, addition: Json): void {
  const existing = responses[status];
  responses[status] = existing
    ? { ...merged(existing, addition), description: `${String(existing.description)}; or ${String(addition.description)}` }
    : addition;
}

/** The coded errors a route declares (`errors`), one response per status listing its codes. */
function documentErrors(errors: readonly ErrorCode[], responses: Record<string, Json>): void {
  const byStatus = new Map<number, string[]>();
  for (const { status, code } of errors) byStatus.set(status, [...new Set([...(byStatus.get(status) ?? []), code])]);
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    addResponse(responses, String(status), codedEnvelope(codes.map((code) => `\`${code}\``).join(' or '), codes));
  }
}

/**
 * Statuses that the mounted chain (app/core/mount.ts) can answer before or around the handler,
 * added to every route that has that link, unless the route documents the status itself.
 */
/** Methods whose body the service ignores (app/core/client-errors.ts). */
const BODILESS_METHODS = new Set(['GET', 'DELETE']);

function chainResponses(route: Route): Record<string, Json> {
  const responses: Record<string, Json> = {};
  if (route.schemas) responses['400'] = envelope('Validation failed', ValidationErrorBody);
  const apiKey = apiKeyAccessOf(route.auth);
  if (route.auth === 'jwt') responses['401'] = envelope('Invalid or missing access token', ErrorBody);
  if (endUserAuthOf(route.auth)) responses['401'] = envelope("Invalid or missing end user's session token", ErrorBody);
  if (apiKey) {
    const credential = apiKey.keyOnly ? `an API key with \`${apiKey.scope}\`` : `an API key with \`${apiKey.scope}\` or an access token`;
    responses['401'] = envelope(`Invalid or missing credential: send ${credential}`, ErrorBody);
  }
  const refusals = [
    route.principal && `the token is not a ${route.principal}'s`,
    route.policy && `the caller lacks ${describePolicy(route.policy, (text) => `\`${text}\``)}`,
    route.scope && 'the caller may not act in the organization `x-org-id` names',
  ].filter(Boolean);
  if (refusals.length) responses['403'] = envelope(`Forbidden: ${refusals.join(', or ')}`, ErrorBody);
  const encodings = acceptedEncodings(route);
  const encoded = encodings.length ? `Content-Encoding ${encodings.join(' or ')} or none` : 'the body not encoded (no Content-Encoding)';
  const limit = route.body?.limitBytes;
  const tooLarge =
    limit === undefined
      ? 'Payload too large'
      : `Payload too large (over ${limit} bytes${encodings.length ? ', also after inflation' : ''})`;
  if (route.body?.kind === 'otlp') {
    responses['413'] = envelope(tooLarge, ErrorBody);
    responses['415'] = envelope(`Content-Type must be application/x-protobuf or application/json; ${encoded}`, ErrorBody);
  } else if (route.body?.kind === 'multipart') {
    responses['413'] = envelope(tooLarge, ErrorBody);
    responses['415'] = envelope('Content-Type must be multipart/form-data or application/json, and the body not encoded', ErrorBody);
  } else if (route.body?.kind === 'binary') {
    responses['413'] = envelope(tooLarge, ErrorBody);
  } else if (route.schemas?.body) {
    responses['413'] = envelope(tooLarge, ErrorBody);
    responses['415'] = envelope(`Content-Type must be application/json, and ${encoded}`, ErrorBody);
  }
  // Any other route that reads a body refuses an encoded one (app/core/content-encoding.ts).
  if (!responses['415'] && !encodings.length && !BODILESS_METHODS.has(route.method)) {
    responses['415'] = envelope('The body is encoded (Content-Encoding): only the ingestion routes accept that', ErrorBody);
  }
  if (mayExceedHeaderLimit(route.schemas?.query)) {
    responses['431'] = envelope(
      `Request header fields too large: the request line and headers together exceed ${HEADER_LIMIT_BYTES} bytes, ` +
        'which the documented query lengths allow (percent-encoded non-ASCII text takes up to 12 bytes a character)',
      ErrorBody,
    );
  }
  if (route.rateLimit)
    responses['429'] = envelope(`Rate limit exceeded (\`${CORE_RATE_LIMIT_EXCEEDED.code}\`, with \`Retry-After\`)`, RateLimitedBody);
  return responses;
}

const schemaOf = (response: Json) =>
  (response.content as { 'application/json'?: { schema?: Json } } | undefined)?.['application/json']?.schema;

/**
 * A status that both the chain and the handler answer (a 400 of validation and a coded 400 of
 * the handler; a plain 403 of the policy and a coded one): either body, described by the handler.
 */
function merged(chain: Json, declared: Json): Json {
  const [a, b] = [schemaOf(chain), schemaOf(declared)];
  if (!a || !b || JSON.stringify(a) === JSON.stringify(b)) return { ...chain, ...declared };
  const branches = [...((a.anyOf as Json[] | undefined) ?? [a]), ...((b.anyOf as Json[] | undefined) ?? [b])];
  const unique = branches.filter(
    (branch, index) => branches.findIndex((other) => JSON.stringify(other) === JSON.stringify(branch)) === index,
  );
  return { description: declared.description, content: { 'application/json': { schema: { anyOf: unique } } } };
}

const IDEMPOTENCY_STATUSES: Record<string, { code: string; description: string }> = {
  [CORE_IDEMPOTENCY_KEY_IN_FLIGHT.status]: {
    code: CORE_IDEMPOTENCY_KEY_IN_FLIGHT.code,
    description: 'a request with this Idempotency-Key is still in flight',
  },
  [CORE_IDEMPOTENCY_KEY_REUSED.status]: {
    code: CORE_IDEMPOTENCY_KEY_REUSED.code,
    description: 'this Idempotency-Key was used with another request in the last 24 hours',
  },
};

/** The `Idempotency-Key` header of a creating POST (app/core/idempotency.ts), its statuses and its replay header. */
function documentIdempotency(operation: Json, responses: Record<string, Json>, successStatus: number): void {
  (operation.parameters as Json[]).push({
    name: IDEMPOTENCY_KEY_HEADER,
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: the same key and request from the same principal within 24 hours replays the first ' +
      `answer (with \`${IDEMPOTENT_REPLAYED_HEADER}: true\`) instead of creating again.`,
    schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN, minLength: 1, maxLength: 255 },
  });
  for (const [status, { code, description }] of Object.entries(IDEMPOTENCY_STATUSES)) {
    addResponse(responses, status, codedEnvelope(`${code}: ${description}`, [code]));
  }
  const success = responses[String(successStatus)];
  if (success) {
    success.headers = {
      [IDEMPOTENT_REPLAYED_HEADER]: {
        description: '`true` when the answer is a replay of an earlier request with the same key',
        schema: { type: 'string', enum: ['true'] },
      },
    };
  }
}

/**
 * The OpenAPI 3.1 document, generated from the same route declarations (and so the same
 * AJV schemas) that the router mounts. JSON Schema 2020-12 is OpenAPI 3.1's schema dialect.
 */
export function buildOpenApiDocument(routes: readonly Route[], info: { title: string; version: string }): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    const path = openApiPath(fullPath(route));
    const responses: Record<string, Json> = chainResponses(route);
    for (const [status, response] of Object.entries(route.responses)) {
      const declared: Json = response.schema
        ? { description: response.description, content: { 'application/json': { schema: plain(response.schema) } } }
        : { description: response.description };
      responses[status] = responses[status] ? merged(responses[status], declared) : declared;
    }
    // The scope's 404 is the chain's, listed with the handler's own codes of that status.
    const resource = resourceScopeOf(route);
    documentErrors([...(resource ? [resource.error] : []), ...(route.errors ?? [])], responses);
    const operation: Json = {
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      summary: route.summary,
      tags: route.tags,
      parameters: [...parametersOf('path', route.schemas?.params), ...parametersOf('query', route.schemas?.query)],
      responses,
    };
    if (route.description) operation.description = route.description;
    // Read by the fuzzer's tenancy case (fuzz/tenancy.ts): which parameter names a resource of the acting organization.
    if (resource) operation['x-scope'] = { name: resource.key, parameter: resource.param, errorCode: resource.error.code };
    if (route.scope) operation['x-acting-organization'] = true;
    if (route.idempotent) documentIdempotency(operation, responses, route.status ?? 200);
    const requestBody = requestBodyOf(route);
    if (requestBody) operation.requestBody = requestBody;
    const security = securityOf(route);
    if (security) operation.security = security;
    const extras: string[] = [];
    if (route.principal) extras.push(`Principal type: ${route.principal}.`);
    if (route.policy) extras.push(`Policy: ${describePolicy(route.policy, (text) => `\`${text}\``)}.`);
    if (route.scope)
      extras.push('Acts in the organization of the `x-org-id` header, else of the token (an agency in its businesses; 403 elsewhere).');
    if (resource)
      extras.push(
        `Scope: \`${resource.param}\` names a ${resource.key} of the acting organization (404 \`${resource.error.code}\` otherwise).`,
      );
    if (extras.length) operation.description = [route.description, ...extras].filter(Boolean).join('\n\n');
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: '/' }],
    components: {
      securitySchemes: SECURITY_SCHEMES,
    },
    paths,
  };
}
