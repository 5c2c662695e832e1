import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { OutboundError, safeFetch, type OutboundOptions } from '../../app/net/guarded-fetch.ts';

type Seen = { method: string; path: string; authorization: string | undefined; body: string };

/** One local server whose routes are given per test; it records every request. */
async function serve(routes: Record<string, (request: IncomingMessage, response: ServerResponse) => void>) {
  const seen: Seen[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = request.url ?? '/';
    seen.push({ method: request.method ?? '', path, authorization: request.headers.authorization, body: Buffer.concat(chunks).toString() });
    const route = routes[path];
    if (route) route(request, response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

const redirectTo =
  (location: string, status = 302) =>
  (_: IncomingMessage, response: ServerResponse) =>
    response.writeHead(status, { location }).end();
const ok = (body: string) => (_: IncomingMessage, response: ServerResponse) =>
  response.writeHead(200, { 'content-type': 'application/json' }).end(body);

const development: OutboundOptions = { policy: { allowLoopbackHttp: true }, timeoutMs: 5_000, maxResponseBytes: 1024, maxRedirects: 2 };

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof OutboundError)) throw new Error(`expected an OutboundError, got ${String(error)}`);
  return error;
}

test('redirects within the limit are followed to the final answer', async (t) => {
  const server = await serve({ '/a': redirectTo('/b'), '/b': redirectTo('/c', 301), '/c': ok('{"done":true}') });
  t.teardown(server.close);
  const response = await safeFetch(`${server.origin}/a`, {}, development);
  t.is(response.status, 200);
  t.deepEqual(JSON.parse(response.body.toString('utf8')), { done: true });
  t.is(response.url.pathname, '/c');
});

test('more redirects than allowed are refused', async (t) => {
  const server = await serve({ '/a': redirectTo('/b'), '/b': redirectTo('/c'), '/c': redirectTo('/d'), '/d': ok('{}') });
  t.teardown(server.close);
  const error = await failure(safeFetch(`${server.origin}/a`, {}, development));
  t.is(error.kind, 'too_many_redirects');
  t.false(server.seen.some((request) => request.path === '/d'));
});

test('a redirect to a private or metadata address is refused before connecting', async (t) => {
  for (const target of [
    'http://10.0.0.1/x',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00::1]/',
    'https://metadata.google.internal/',
  ]) {
    const server = await serve({ '/a': redirectTo(target) });
    t.teardown(server.close);
    const error = await failure(safeFetch(`${server.origin}/a`, {}, { ...development, timeoutMs: 3_000 }));
    t.is(error.kind, 'refused', target);
  }
});

test('outside development plain http to loopback is refused', async (t) => {
  const server = await serve({ '/a': ok('{}') });
  t.teardown(server.close);
  const error = await failure(safeFetch(`${server.origin}/a`, {}, { ...development, policy: { allowLoopbackHttp: false } }));
  t.is(error.kind, 'refused');
  t.deepEqual(server.seen, []);
});

test('a host name that resolves to another address when connecting (DNS rebinding) is refused', async (t) => {
  const server = await serve({ '/a': ok('{"reached":true}') });
  t.teardown(server.close);
  let lookups = 0;
  const rebinding = async () => (++lookups === 1 ? ['127.0.0.1'] : ['10.0.0.1']);
  const error = await failure(safeFetch(`http://rebind.test:${server.port}/a`, {}, { ...development, lookup: rebinding }));
  t.is(error.kind, 'refused');
  t.true(lookups >= 2, 'the address was checked again when connecting');
  t.deepEqual(server.seen, []);

  const stable = async () => ['127.0.0.1'];
  const response = await safeFetch(`http://stable.test:${server.port}/a`, {}, { ...development, lookup: stable });
  t.deepEqual(JSON.parse(response.body.toString('utf8')), { reached: true });
});

test('Authorization is kept on a same-origin redirect and dropped when the redirect leaves the origin', async (t) => {
  const other = await serve({ '/z': ok('{}') });
  t.teardown(other.close);
  const server = await serve({ '/a': redirectTo('/b'), '/b': redirectTo(`${other.origin}/z`) });
  t.teardown(server.close);
  await safeFetch(`${server.origin}/a`, { headers: { authorization: 'Bearer secret' } }, development);
  t.is(server.seen.find((request) => request.path === '/b')?.authorization, 'Bearer secret');
  t.is(other.seen[0]?.authorization, undefined);
});

test('a 303 after a POST is followed with a GET without the body', async (t) => {
  const server = await serve({ '/form': redirectTo('/result', 303), '/result': ok('{}') });
  t.teardown(server.close);
  await safeFetch(`${server.origin}/form`, { method: 'POST', body: 'a=1', headers: { 'content-type': 'text/plain' } }, development);
  t.deepEqual(
    server.seen.map((request) => [request.method, request.path, request.body]),
    [
      ['POST', '/form', 'a=1'],
      ['GET', '/result', ''],
    ],
  );
});

test('a body over the bound is refused whether or not its length is declared', async (t) => {
  const big = 'x'.repeat(4096);
  const server = await serve({
    '/declared': ok(big),
    '/streamed': (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 8; i++) response.write(big.slice(0, 512));
      response.end();
    },
    '/within': ok('x'.repeat(1024)),
  });
  t.teardown(server.close);
  t.is((await failure(safeFetch(`${server.origin}/declared`, {}, development))).kind, 'too_large');
  t.is((await failure(safeFetch(`${server.origin}/streamed`, {}, development))).kind, 'too_large');
  t.is((await safeFetch(`${server.origin}/within`, {}, development)).body.length, 1024);
});

test('an answer slower than the timeout is refused at the deadline', async (t) => {
  const server = await serve({ '/slow': () => {} });
  t.teardown(server.close);
  const error = await failure(safeFetch(`${server.origin}/slow`, {}, { ...development, timeoutMs: 300 }));
  t.is(error.kind, 'timeout');
});

test('a host name that resolves slowly is refused at the deadline', async (t) => {
  const slowLookup = () => new Promise<string[]>((resolve) => setTimeout(() => resolve(['127.0.0.1']), 3_000).unref());
  const error = await failure(safeFetch('http://slow-dns.test/', {}, { ...development, timeoutMs: 300, lookup: slowLookup }));
  t.is(error.kind, 'timeout');
});
