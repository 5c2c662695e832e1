import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest, { seed: false });

test('the OpenAPI document describes the catalog and agent MCP-server routes with the variant union', async (t) => {
  const response = await t.context.t.http().get('/api/openapi.json').expect(200);
  const paths = response.body.paths as Record<
    string,
    Record<
      string,
      { requestBody?: { content: { 'application/json': { schema: { properties: Record<string, { items?: { oneOf?: unknown[] } }> } } } } }
    >
  >;
  t.truthy(paths['/api/available-mcps']?.get);
  t.truthy(paths['/api/available-mcps/{id}']?.delete);
  t.truthy(paths['/api/ai/agents/{agentId}/mcp-servers']?.post);
  t.truthy(paths['/api/ai/agents/{agentId}/mcp-servers/{serverId}']?.delete);
  const variants = paths['/api/available-mcps']!.post!.requestBody!.content['application/json'].schema.properties.variants;
  t.is(variants?.items?.oneOf?.length, 3);
});
