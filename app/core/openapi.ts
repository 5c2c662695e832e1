import type { TSchema } from '@sinclair/typebox';
import { guardResponses, merged, type RateLimitedQuestion } from './guard-responses.ts';
import { fullPath, type Route } from './route.ts';
import { ValidationErrorBody } from './schemas.ts';

type Json = Record<string, unknown>;

/** `/api/ai/agents/:agentId` -> `/api/ai/agents/{agentId}`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** Plain JSON of a TypeBox schema (drops TypeBox's symbol keys). */
const plain = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema)) as Json;

function parametersOf(location: 'path' | 'query', schema: TSchema | undefined): Json[] {
  if (!schema) return [];
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  const required = new Set<string>((schema.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    schema: plain(property),
    ...(property.description ? { description: property.description } : {}),
  }));
}

/**
 * The OpenAPI 3.1 document, generated from the same route declarations (and so the same
 * AJV schemas) that the router mounts. JSON Schema 2020-12 is OpenAPI 3.1's schema dialect.
 */
export function buildOpenApiDocument(
  routes: Route[],
  info: { title: string; version: string },
  isRateLimited: RateLimitedQuestion,
): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    const path = openApiPath(fullPath(route));
    const responses: Record<string, Json> = {};
    const derived = guardResponses(route, isRateLimited);
    const statuses = [...new Set([...Object.keys(route.responses), ...Object.keys(derived)])].sort();
    for (const status of statuses) {
      const response = merged(derived[Number(status)], route.responses[Number(status)]);
      responses[status] = response.schema
        ? { description: response.description, content: { 'application/json': { schema: plain(response.schema) } } }
        : { description: response.description };
    }
    if (route.schemas && !responses['400']) {
      responses['400'] = {
        description: 'Validation failed',
        content: { 'application/json': { schema: plain(ValidationErrorBody) } },
      };
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
      operation.requestBody = { required: true, content: { 'application/json': { schema: plain(route.schemas.body) } } };
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
