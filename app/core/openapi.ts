import type { TSchema } from '@sinclair/typebox';
import { fullPath, type Route } from './route.ts';
import { ErrorBody, RateLimitedBody, ValidationErrorBody } from './schemas.ts';
import { REQUIRED_BY_HANDLER } from './validation.ts';

type Json = Record<string, unknown>;

/** `/api/ai/agents/:agentId` -> `/api/ai/agents/{agentId}`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** Plain JSON of a TypeBox schema (drops TypeBox's symbol keys). */
const plain = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema)) as Json;

function parametersOf(location: 'path' | 'query', schema: TSchema | undefined): Json[] {
  if (!schema) return [];
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  const required = new Set<string>((schema.required as string[] | undefined) ?? []);
  // A parameter with a default may be left out: AJV fills it in, so it is not `required`.
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || (required.has(name) && property.default === undefined),
    schema: plain(property),
    ...(property.description ? { description: property.description } : {}),
  }));
}

/**
 * A body schema as documented: properties the handler requires (annotated
 * `x-required-by-handler`, answered with the route's own status when missing) are `required`.
 */
function documentedBody(schema: TSchema): Json {
  const json = plain(schema);
  const byHandler = json[REQUIRED_BY_HANDLER] as string[] | undefined;
  if (byHandler) json.required = [...new Set([...((json.required as string[] | undefined) ?? []), ...byHandler])];
  return json;
}

const envelope = (description: string, schema: TSchema): Json => ({
  description,
  content: { 'application/json': { schema: plain(schema) } },
});

/**
 * Statuses that the mounted chain (app/core/mount.ts) can answer before or around the handler,
 * added to every route that has that link, unless the route documents the status itself.
 */
function chainResponses(route: Route, limited: boolean): Record<string, Json> {
  const responses: Record<string, Json> = {};
  if (route.schemas) responses['400'] = envelope('Validation failed', ValidationErrorBody);
  if (route.auth === 'jwt') responses['401'] = envelope('Invalid or missing access token', ErrorBody);
  const refusals = [
    route.principal && `the token is not a ${route.principal}'s`,
    route.policy && `the caller lacks \`${route.policy.action}\` on \`${route.policy.subject}\``,
  ].filter(Boolean);
  if (refusals.length) responses['403'] = envelope(`Forbidden: ${refusals.join(', or ')}`, ErrorBody);
  if (route.schemas?.body) {
    responses['413'] = envelope('Payload too large', ErrorBody);
    responses['415'] = envelope('Content-Type must be application/json', ErrorBody);
  } else if (route.body) {
    responses['413'] = envelope(`Payload too large (over ${route.body.limitBytes} bytes)`, ErrorBody);
  }
  if (limited) responses['429'] = envelope('Rate limit exceeded (`CORE.RATE_LIMIT_EXCEEDED`, with `Retry-After`)', RateLimitedBody);
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

export type OpenApiOptions = {
  /** Whether a route has a rate limit (its 429 is documented). Default: none has. */
  isLimited?: (route: Route) => boolean;
};

/**
 * The OpenAPI 3.1 document, generated from the same route declarations (and so the same
 * AJV schemas) that the router mounts. JSON Schema 2020-12 is OpenAPI 3.1's schema dialect.
 */
export function buildOpenApiDocument(routes: Route[], info: { title: string; version: string }, options: OpenApiOptions = {}): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    const path = openApiPath(fullPath(route));
    const responses: Record<string, Json> = chainResponses(route, options.isLimited?.(route) ?? false);
    for (const [status, response] of Object.entries(route.responses)) {
      const declared: Json = response.schema
        ? { description: response.description, content: { 'application/json': { schema: plain(response.schema) } } }
        : { description: response.description };
      responses[status] = responses[status] ? merged(responses[status], declared) : declared;
    }
    const operation: Json = {
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      summary: route.summary,
      tags: route.tags,
      parameters: [...parametersOf('path', route.schemas?.params), ...parametersOf('query', route.schemas?.query)],
      responses,
    };
    if (route.description) operation.description = route.description;
    if (route.schemas?.body) {
      operation.requestBody = { required: true, content: { 'application/json': { schema: documentedBody(route.schemas.body) } } };
    }
    if (route.auth === 'jwt') operation.security = [{ bearerAuth: [] }];
    const extras: string[] = [];
    if (route.principal) extras.push(`Principal type: ${route.principal}.`);
    if (route.policy) extras.push(`Policy: \`${route.policy.action}\` on \`${route.policy.subject}\`.`);
    if (extras.length) operation.description = [route.description, ...extras].filter(Boolean).join('\n\n');
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: '/' }],
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    paths,
  };
}
