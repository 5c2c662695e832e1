import test from 'ava';
import { Type } from '@sinclair/typebox';
import { currentEndpointTable, ENDPOINT_TABLES, renderEndpointTable, shapeOf } from '../../bin/docs/endpoint-tables.ts';
import { areaRoutes } from '../../app/routes.ts';

for (const table of ENDPOINT_TABLES) {
  test(`${table.page}'s ${table.name} endpoint table is the one generated from the routes (npm run docs:tables)`, (t) => {
    t.is(currentEndpointTable(table), renderEndpointTable(table, areaRoutes));
  });
}

const agents = ENDPOINT_TABLES.find((table) => table.name === 'agents-and-tools')!;
const rowOf = (text: string, request: string) => text.split('\n').find((line) => line.startsWith(`| \`${request}\``));

test('the agents table lists every agent route, PATCH with modelId among its keys, and the coded 404', (t) => {
  const text = renderEndpointTable(agents, areaRoutes);
  for (const route of areaRoutes.filter((one) => one.tags.includes('agents'))) t.truthy(rowOf(text, `${route.method} ${route.path}`));
  t.regex(
    rowOf(text, 'PATCH /ai/agents/:agentId')!,
    /`\{ name\?, description\?, modelId\?, .*\}` .*`update` on `ai\.agent`.*404 `AI\.AGENT_NOT_FOUND`/,
  );
});

test('a route added to an area shows in its table, so a stale page fails the first tests', (t) => {
  const extra = {
    ...areaRoutes.find((route) => route.path === '/ai/agents/:agentId' && route.method === 'GET')!,
    method: 'PUT' as const,
  };
  t.truthy(rowOf(renderEndpointTable(agents, [...areaRoutes, extra]), 'PUT /ai/agents/:agentId'));
  t.falsy(rowOf(renderEndpointTable(agents, areaRoutes), 'PUT /ai/agents/:agentId'));
});

test('a shape names keys two levels deep, marks optional ones, and reads a union as either shape', (t) => {
  const item = Type.Object({ id: Type.String(), meta: Type.Object({ deep: Type.String() }) });
  t.is(
    shapeOf(JSON.parse(JSON.stringify(Type.Object({ items: Type.Array(item), next: Type.Optional(Type.String()) })))),
    '{ items: [ { id, meta } ], next? }',
  );
  t.is(shapeOf(JSON.parse(JSON.stringify(Type.Union([Type.Object({ a: Type.String() }), Type.Null()])))), '{ a } or null');
});

test("docs/api.md's index lists every route in one area, and a route of no area fails the generator", (t) => {
  const index = ENDPOINT_TABLES.find((table) => table.kind === 'index')!;
  const text = renderEndpointTable(index, areaRoutes);
  for (const route of areaRoutes) t.true(text.includes(`${route.path}\``), route.path);
  t.regex(text, /\| organization and plans \| `GET`\/`PATCH \/organization\/my`/);
  const stray = { ...areaRoutes[0]!, tags: ['nowhere'], path: '/stray' };
  t.throws(() => renderEndpointTable(index, [...areaRoutes, stray]), { message: /no area for GET \/stray/ });
});
