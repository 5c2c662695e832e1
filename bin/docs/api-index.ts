/**
 * The index table of docs/api.md: every declared route, grouped by area, with the page that
 * documents the area. Rendered by bin/docs/endpoint-tables.ts between the page's markers. An area
 * is a set of route tags; a route whose tags no area names fails the generator, so a new area
 * gets its row (and its page) when its first route is declared.
 */
import type { Route } from '../../app/core/route.ts';

/** `pages`: the docs pages (in docs/) of the area; none: docs/api.md's own text below the table says it all. */
type Area = { label: string; tags: readonly string[]; pages: readonly string[] };

export const AREAS: readonly Area[] = [
  { label: 'health', tags: ['health'], pages: [] },
  { label: 'identity', tags: ['identity', 'notifications'], pages: ['identity.md'] },
  { label: 'organization and plans', tags: ['organization', 'plans'], pages: ['identity.md'] },
  { label: "the agency's bill and brand", tags: ['billing', 'branding'], pages: ['billing.md'] },
  { label: 'agents, tools and knowledge', tags: ['agents', 'tools', 'knowledge'], pages: ['agents-and-tools.md'] },
  { label: 'agent versions and evaluations', tags: ['evaluations'], pages: ['evaluations.md'] },
  { label: 'MCP catalog and servers', tags: ['available-mcps', 'mcp-servers', 'mcp-oauth'], pages: ['mcp.md', 'mcp-oauth.md'] },
  { label: 'chat, models and staff approvals', tags: ['chat', 'approvals'], pages: ['chat.md'] },
  { label: 'web channel', tags: ['channel', 'web channel'], pages: ['channel.md'] },
  {
    label: 'usage analytics, ingestion, prices, budgets, API keys',
    tags: ['usage analytics', 'analytics', 'api-keys'],
    pages: ['analytics.md'],
  },
];

/** `GET`/`PATCH /ai/agents/:agentId`: the methods of one path, in declaration order, then the path. */
function routesOf(routes: readonly Route[]): string {
  const byPath = new Map<string, string[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route.method]);
  return [...byPath]
    .map(([path, methods]) => [...methods.slice(0, -1).map((method) => `\`${method}\``), `\`${methods.at(-1)} ${path}\``].join('/'))
    .join(', ');
}

export function renderApiIndex(routes: readonly Route[]): string {
  const unplaced = routes.filter((route) => !AREAS.some((area) => route.tags.some((tag) => area.tags.includes(tag))));
  if (unplaced.length) throw new Error(`api-index: no area for ${unplaced.map((route) => `${route.method} ${route.path}`).join(', ')}`);
  const rows = AREAS.map((area) => {
    const own = routes.filter((route) => route.tags.some((tag) => area.tags.includes(tag)));
    const pages = area.pages.length ? area.pages.map((page) => `[docs/${page}](${page})`).join(', ') : 'below';
    return `| ${area.label} | ${routesOf(own)} | ${pages} |`;
  });
  return ['| area | routes (below `/api`) | page |', '|---|---|---|', ...rows].join('\n');
}
