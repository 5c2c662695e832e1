/**
 * The endpoint tables of the docs pages, generated from the route declarations (app/routes.ts):
 * path and request keys, summary, who may call, the success answer's shape and the error
 * statuses (with their codes) as the OpenAPI document lists them; and docs/api.md's index of every
 * route by area (bin/docs/api-index.ts). `npm run docs:tables` rewrites
 * each table between its page's markers; test/core/endpoint-tables.test.ts fails when a page and
 * the routes differ. What a table cannot say (ordering, guards) stays in the page's prose.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { TSchema } from '@sinclair/typebox';
import { buildOpenApiDocument, openApiPath } from '../../app/core/openapi.ts';
import { apiKeyAccessOf, describePolicy, endUserAuthOf, fullPath, type Route } from '../../app/core/route.ts';
import { areaRoutes } from '../../app/routes.ts';
import { renderApiIndex } from './api-index.ts';
import { tableBetween, type Markers } from './marked-table.ts';
import { spelledWindow } from './rate-limit-table.ts';

type Json = Record<string, unknown>;

export type EndpointTable = {
  /** The page, relative to the repository root. */
  page: string;
  /** The marker name: `<!-- endpoint-table:start NAME ... -->`. */
  name: string;
  /** The routes the table lists, in mounting order. */
  select: (route: Route) => boolean;
  /** `index`: one row per area listing its routes (docs/api.md, bin/docs/api-index.ts); default one row per route. */
  kind?: 'index';
};

const tagged =
  (...tags: string[]) =>
  (route: Route) =>
    route.tags.some((tag) => tags.includes(tag));

export const ENDPOINT_TABLES: readonly EndpointTable[] = [
  {
    page: 'docs/agents-and-tools.md',
    name: 'agents-and-tools',
    select: (route) => tagged('agents', 'tools', 'knowledge')(route) || route.path === '/ai/models',
  },
  { page: 'docs/chat.md', name: 'chat', select: tagged('chat', 'approvals') },
  { page: 'docs/evaluations.md', name: 'evaluations', select: tagged('evaluations') },
  { page: 'docs/channel.md', name: 'channel', select: tagged('channel', 'web channel') },
  { page: 'docs/mcp.md', name: 'mcp-catalog', select: tagged('available-mcps') },
  { page: 'docs/mcp.md', name: 'mcp-servers', select: tagged('mcp-servers') },
  { page: 'docs/identity.md', name: 'identity', select: tagged('identity', 'notifications', 'organization', 'plans') },
  { page: 'docs/billing.md', name: 'billing', select: tagged('billing', 'branding') },
  { page: 'docs/api.md', name: 'api-index', select: () => true, kind: 'index' },
];

export const pathOf = (table: EndpointTable) => fileURLToPath(new URL(`../../${table.page}`, import.meta.url));

export const markersOf = (table: EndpointTable): Markers => ({
  start: `<!-- endpoint-table:start ${table.name} (generated from the route declarations by bin/docs/endpoint-tables.ts) -->`,
  end: `<!-- endpoint-table:end ${table.name} -->`,
});

const plain = (schema: TSchema) => JSON.parse(JSON.stringify(schema)) as Json;
/** A table cell: one line, `|` escaped. */
const cell = (text: string) => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');

/**
 * A shape in one line: an object's keys (`?` when optional), an array as `[ item ]`, going two
 * levels deep (`{ agents: [ { id, name } ] }`); deeper values are named only.
 */
export function shapeOf(schema: Json, depth = 0): string {
  const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (branches && !schema.properties) return branches.map((branch) => shapeOf(branch, depth)).join(' or ');
  // An object whose branches complete it (a discriminated union): the keys of every branch.
  if (branches) return shapeOf(mergedBranches(schema, branches), depth);
  if (schema.type === 'array') return `[ ${shapeOf((schema.items ?? {}) as Json, depth)} ]`;
  if (schema.allOf && !schema.properties) {
    const keys = (schema.allOf as Json[]).map((part) => shapeOf(part, depth).replace(/^\{ | \}$/g, ''));
    return `{ ${keys.join(', ')} }`;
  }
  const properties = schema.properties as Record<string, Json> | undefined;
  if (properties) {
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const keys = Object.entries(properties).map(([name, value]) => {
      const key = `${name}${required.has(name) ? '' : '?'}`;
      const nested = value.type === 'array' ? ((value.items ?? {}) as Json) : value;
      return depth < 1 && (nested.properties || nested.allOf) ? `${key}: ${shapeOf(value, depth + 1)}` : key;
    });
    return keys.length ? `{ ${keys.join(', ')} }` : '{}';
  }
  if ('const' in schema) return JSON.stringify(schema.const);
  if (schema.patternProperties) return '{ ... }';
  return typeof schema.type === 'string' ? schema.type : 'any JSON';
}

/** One object with the keys of `schema` and of its branches; a key is required when every branch requires it. */
function mergedBranches(schema: Json, branches: Json[]): Json {
  const properties: Record<string, Json> = { ...(schema.properties as Record<string, Json>) };
  for (const branch of branches) Object.assign(properties, { ...(branch.properties as Record<string, Json>), ...properties });
  const requiredIn = (part: Json) => new Set((part.required as string[] | undefined) ?? []);
  const required = Object.keys(properties).filter(
    (key) => requiredIn(schema).has(key) || branches.every((branch) => requiredIn(branch).has(key)),
  );
  return { type: 'object', properties, required };
}

function request(route: Route): string {
  const parts = [`\`${route.method} ${route.path}\``];
  const query = route.schemas?.query;
  if (query) parts.push(`\`?${Object.keys((query.properties ?? {}) as Json).join('&')}\``);
  if (route.schemas?.body) parts.push(`\`${shapeOf(plain(route.schemas.body))}\``);
  else if (route.body?.kind === 'binary') parts.push(`body: ${route.body.mediaTypes.join(', ')}`);
  else if (route.body?.kind === 'otlp') parts.push(`an OTLP/HTTP body (at most ${route.body.limitBytes.toLocaleString('en-US')} bytes)`);
  else if (route.body?.kind === 'multipart')
    parts.push(`one file, multipart or JSON (at most ${route.body.limitBytes.toLocaleString('en-US')} bytes)`);
  return parts.join(' ');
}

function who(route: Route): string {
  const parts: string[] = [];
  const apiKey = apiKeyAccessOf(route.auth);
  const endUser = endUserAuthOf(route.auth) !== undefined;
  if (route.auth === 'public') parts.push('anyone');
  else if (endUser) parts.push("an end user's session token");
  else if (!apiKey?.keyOnly) parts.push(route.principal ? `a ${route.principal} token` : 'any token');
  if (route.policy) parts.push(describePolicy(route.policy, (text) => `\`${text}\``));
  if (apiKey) parts.push(`${apiKey.keyOnly ? 'only ' : 'or '}an API key with \`${apiKey.scope}\``);
  const limit = route.rateLimit;
  if (limit) {
    const per =
      limit.identifierType === 'ip'
        ? 'address'
        : limit.identifierType === 'apiKey'
          ? 'API key'
          : limit.identifierType === 'organization'
            ? 'organization'
            : endUser
              ? 'end user'
              : 'user';
    parts.push(`${limit.limit} per ${spelledWindow(limit.windowMs)} per ${per}`);
  }
  return parts.join('; ');
}

function success(route: Route): string {
  const status = route.status ?? 200;
  const response = route.responses[status];
  if (!response?.schema) return `${status}${status === 204 ? '' : ` ${response?.description ?? ''}`}`.trim();
  return `${status} \`${shapeOf(plain(response.schema))}\``;
}

/** The `errorCode` values a documented error body names (under any `anyOf`). */
function codesIn(schema: unknown): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const json = schema as Json;
  const own = ((json.properties as Json | undefined)?.errorCode as Json | undefined)?.enum as string[] | undefined;
  return [...(own ?? []), ...((json.anyOf as unknown[] | undefined) ?? []).flatMap(codesIn)];
}

/** The error statuses the OpenAPI document lists for the route, each with the codes it names. */
function errors(operation: Json): string {
  const responses = operation.responses as Record<string, Json>;
  return Object.entries(responses)
    .filter(([status]) => Number(status) >= 400)
    .map(([status, response]) => {
      const content = response.content as Record<string, { schema?: unknown }> | undefined;
      const codes = [...new Set(codesIn(content?.['application/json']?.schema))];
      return codes.length ? `${status} ${codes.map((code) => `\`${code}\``).join(', ')}` : status;
    })
    .join('; ');
}

export function renderEndpointTable(table: EndpointTable, routes: readonly Route[] = areaRoutes): string {
  const selected = routes.filter(table.select);
  if (table.kind === 'index') return renderApiIndex(selected);
  const paths = buildOpenApiDocument(selected, { title: '', version: '' }).paths as Record<string, Record<string, Json>>;
  const rows = selected.map((route) => {
    const operation = paths[openApiPath(fullPath(route))]![route.method.toLowerCase()]!;
    return `| ${[request(route), route.summary, who(route), success(route), errors(operation)].map(cell).join(' | ')} |`;
  });
  return ['| request (below `/api`) | what | who | success | errors |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** The table of `table` in its page as it is now, or undefined when a marker is missing. */
export const currentEndpointTable = (table: EndpointTable) => tableBetween(readFileSync(pathOf(table), 'utf8'), markersOf(table));

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const table of ENDPOINT_TABLES) {
    const rendered = renderEndpointTable(table);
    if (!process.argv.includes('--write')) {
      process.stdout.write(`${table.page}\n${rendered}\n\n`);
      continue;
    }
    const path = pathOf(table);
    const page = readFileSync(path, 'utf8');
    const { start, end } = markersOf(table);
    const from = page.indexOf(start);
    const to = page.indexOf(end);
    if (from < 0 || to < from) throw new Error(`${table.page} has no ${start} ... ${end} block`);
    writeFileSync(path, `${page.slice(0, from + start.length)}\n${rendered}\n${page.slice(to)}`);
  }
}
