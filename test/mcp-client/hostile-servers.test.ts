import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';
import { oauthTestConfig } from '../mcp-oauth/context.ts';
import { pagedListing, schemaBombPage, startHostilePeer, type HostilePeer } from './hostile-peers.ts';
import { addServer, detailOf, owner, serversPath, toolsOf, type T } from './routes.ts';

// Development mode: the service may call peers on 127.0.0.1. Default MCP client limits
// (4 MiB per response, 10 s deadline).
const base = oauthTestConfig();
const test = withTestApp(anyTest, {
  app: { config: { ...base, mcpClient: { ...base.mcpClient, timeoutMs: 10_000, maxResponseBytes: 4 * 1024 * 1024 } } },
});

const MB = 1024 * 1024;

async function hostile(t: T, start: Promise<HostilePeer>) {
  const started = await start;
  t.teardown(() => started.close());
  return started;
}

/** The service on a real port, so that health probes and discovery share its event loop as in production. */
async function listening(t: T): Promise<string> {
  const server: Server = createServer(t.context.t.app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const refreshTools = (base: string, auth: string, serverId: string) =>
  fetch(`${base}${serversPath}/${serverId}/tools?refresh=true`, { headers: { authorization: auth } });

test.serial('a schema bomb in an outputSchema is listed without compiling it: GET /api/health answers during discovery', async (t) => {
  const auth = await owner(t);
  const mcp = await hostile(t, startHostilePeer({ listPage: () => schemaBombPage(200) }));
  const serverId = await addServer(t, auth, { url: mcp.url });
  const base = await listening(t);
  // Warm-up (first-call compilation of the service's own code paths), then measure.
  t.is((await refreshTools(base, auth, serverId)).status, 200);

  const answers: [number, string[] | undefined][] = [];
  let discovering = true;
  const discovery = (async () => {
    for (let call = 0; call < 5; call++) {
      const response = await refreshTools(base, auth, serverId);
      const body = (await response.json()) as { tools?: { name: string }[] };
      answers.push([response.status, body.tools?.map((tool) => tool.name)]);
    }
  })().finally(() => (discovering = false));
  let probes = 0;
  while (discovering) {
    // A probe the service failed to answer (a keep-alive socket it dropped while stalled) is a 0.
    const status = await fetch(`${base}/api/health`).then(
      async (health) => (await health.arrayBuffer(), health.status),
      () => 0,
    );
    probes += 1;
    t.is(status, 200);
  }
  await discovery;

  t.deepEqual(
    answers,
    Array.from({ length: 5 }, () => [200, ['bomb']]),
  );
  t.is(mcp.listCalls.length, 6);
  t.true(probes > 0, 'GET /api/health was probed during discovery');
});

test.serial('a 363 MB listing (100 pages of 20 tools with 190,000-character descriptions) is refused at its first page', async (t) => {
  const auth = await owner(t);
  const listPage = pagedListing({ pages: 100, perPage: 20, descriptionChars: 190_000 });
  const mcp = await hostile(t, startHostilePeer({ listPage }));
  const serverId = await addServer(t, auth, { url: mcp.url });
  const base = await listening(t);
  listPage(undefined);
  for (let call = 0; call < 9; call++) {
    const response = await refreshTools(base, auth, serverId);
    t.is(response.status, 502);
    t.deepEqual(await response.json(), {
      statusCode: 502,
      errorCode: 'MCP.SERVER_TOOLS_TOO_LARGE',
      message: {
        en: 'The MCP server lists tools larger than allowed',
        es: 'El servidor MCP lista herramientas más grandes de lo permitido',
      },
      metadata: { limit: 'description', maxBytes: 64 * 1024, tool: 'tool_0_0' },
    });
  }
  t.deepEqual(
    mcp.listCalls,
    Array.from({ length: 9 }, () => undefined),
    'no call went past the first page',
  );
});

test.serial('a listing past 4 MiB over all its pages is refused with limit listing, however small each page and tool', async (t) => {
  const auth = await owner(t);
  // 100 pages of 20 tools with 20,000-character descriptions: 400 KB a page, 40 MB in all.
  const mcp = await hostile(t, startHostilePeer({ listPage: pagedListing({ pages: 100, perPage: 20, descriptionChars: 20_000 }) }));
  const serverId = await addServer(t, auth, { url: mcp.url });
  const response = await toolsOf(t, auth, serverId).expect(502);
  t.like(response.body, { errorCode: 'MCP.SERVER_TOOLS_TOO_LARGE', metadata: { limit: 'listing', maxBytes: 4 * MB } });
  t.false('tool' in response.body.metadata);
  t.true(mcp.listCalls.length <= 11, `${mcp.listCalls.length} pages were asked for`);
  t.true(mcp.listCalls.length >= 10);
  t.is((await detailOf(t, auth, serverId)).status, 'unreachable');
});

test.serial('a tool whose inputSchema passes 256 KiB is refused with the field and the tool named', async (t) => {
  const auth = await owner(t);
  const wide = {
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: 12_000 }, (_, i) => [`field_${i}`, { type: 'string' }])),
  };
  const page = JSON.stringify({
    tools: [
      { name: 'fine', inputSchema: { type: 'object' } },
      { name: 'wide', inputSchema: wide },
    ],
  });
  const mcp = await hostile(t, startHostilePeer({ listPage: () => page }));
  const serverId = await addServer(t, auth, { url: mcp.url });
  const response = await toolsOf(t, auth, serverId).expect(502);
  t.deepEqual(response.body.metadata, { limit: 'inputSchema', maxBytes: 256 * 1024, tool: 'wide' });
});
