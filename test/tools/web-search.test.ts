import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest, { type ExecutionContext } from 'ava';
import type { Config } from '../../app/config.ts';
import { findBuiltinTool } from '../../app/tools/builtins.ts';
import { withTestApp, testConfig, type TestContext } from '../helpers/app.ts';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';

const test = withTestApp(anyTest);
type T = ExecutionContext<TestContext>;

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A scripted SearXNG-compatible engine on loopback; `requests` keeps each request's URL. */
async function engine(t: T, handler: Handler) {
  const requests: URL[] = [];
  const server = createServer((request, response) => {
    requests.push(new URL(request.url ?? '/', 'http://engine'));
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const json = (body: unknown) => (_: IncomingMessage, response: ServerResponse) => {
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify(body));
};

const scope = { organizationId: ORGANIZATIONS.demoAgency.id, agentId: AGENTS.research.id, userId: USERS.owner.id };

/** Runs `web_search` as the chat would, in an app with `config`. */
function search(t: T, config: Config, input: Record<string, unknown>) {
  const deps = t.context.t.rebuild({ config }).deps;
  const tool = findBuiltinTool('web_search')!;
  const availability = tool.availability(config);
  if (!availability.available) throw new Error(availability.reason);
  return tool.execute(config)!({ deps, scope, input, signal: new AbortController().signal });
}

const development = (webSearchUrl: string, extra: Partial<Config> = {}) => {
  const base = testConfig({ nodeEnv: 'development', ...extra });
  return { ...base, tools: { ...base.tools, webSearchUrl } };
};

const RESULTS = {
  results: [
    {
      title: 'PostgreSQL: Full Text Search',
      url: 'https://www.postgresql.org/docs/current/textsearch.html',
      content: 'Full  text\nsearch.',
      engine: 'x',
    },
    { title: 'Not a web link', url: 'javascript:alert(1)', content: 'dropped' },
    { title: 'SearXNG', url: 'https://docs.searxng.org/', content: 'A metasearch engine.' },
    { title: 'Third', url: 'https://example.org/3', content: 'three' },
  ],
};

test('web_search asks the engine with q and format=json and answers titles, links and snippets, only http(s) links, at most limit', async (t) => {
  const peer = await engine(t, json(RESULTS));
  const answer = await search(t, development(peer.url), { query: 'postgres full text search', limit: 2 });
  t.deepEqual(answer, {
    query: 'postgres full text search',
    results: [
      {
        title: 'PostgreSQL: Full Text Search',
        url: 'https://www.postgresql.org/docs/current/textsearch.html',
        snippet: 'Full text search.',
      },
      { title: 'SearXNG', url: 'https://docs.searxng.org/', snippet: 'A metasearch engine.' },
    ],
  });
  t.is(peer.requests[0]!.pathname, '/search');
  t.is(peer.requests[0]!.searchParams.get('q'), 'postgres full text search');
  t.is(peer.requests[0]!.searchParams.get('format'), 'json');
});

test('a hostile engine is bounded: a non-JSON answer, an error status, an endless body and a silent engine each fail the call', async (t) => {
  const html = await engine(t, (_, response) => response.end('<html>captcha</html>'));
  await t.throwsAsync(search(t, development(html.url), { query: 'x' }), { message: /did not answer the SearXNG JSON format/ });
  const failing = await engine(t, (_, response) => {
    response.statusCode = 429;
    response.end('{}');
  });
  await t.throwsAsync(search(t, development(failing.url), { query: 'x' }), { message: /answered HTTP 429/ });
  const endless = await engine(t, (_, response) => {
    response.setHeader('content-type', 'application/json');
    const chunk = Buffer.alloc(16 * 1024, 'a');
    const pump = () => {
      while (response.write(chunk));
      response.once('drain', pump);
    };
    pump();
  });
  // The tests' OUTBOUND_MAX_RESPONSE_BYTES is 64 KiB.
  await t.throwsAsync(search(t, development(endless.url), { query: 'x' }), { message: /web_search failed: .*(large|bytes)/i });
  const silent = await engine(t, () => {});
  await t.throwsAsync(
    search(t, development(silent.url, { mcpOAuth: { ...testConfig().mcpOAuth, outboundTimeoutMs: 300 } }), { query: 'x' }),
    {
      message: /web_search failed: no answer before the deadline/,
    },
  );
});

test('outside development a loopback WEB_SEARCH_URL is refused by the outbound URL policy, and without the variable the tool is unavailable', async (t) => {
  const peer = await engine(t, json(RESULTS));
  const base = testConfig({ nodeEnv: 'production' });
  await t.throwsAsync(search(t, { ...base, tools: { ...base.tools, webSearchUrl: peer.url } }, { query: 'x' }), {
    message: /web_search failed/,
  });
  t.is(peer.requests.length, 0);
  t.deepEqual(findBuiltinTool('web_search')!.availability(testConfig()), { available: false, reason: 'WEB_SEARCH_URL is not set' });
});
