// Child process for the Koa overhead benchmark: one process serving every variant, so that they share the same
// heap, JIT state and core (separate processes differ by a few percent on their own).
// argv: the targets to serve. Prints `{"<target>": "<url>", ...}` once listening; the line `cpu` on stdin answers
// with this process's CPU time in microseconds; exits when stdin closes.
import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { ipKey, MemoryStore } from '../src/index.ts';
import { rateLimit } from '../src/koa/index.ts';

// A limit the load never reaches, so every request takes the allowed path (counted, headers set, next()).
const declaration = { windowMs: '1s', limit: 1_000_000_000, identifierType: 'ip' } as const;
const hello: Middleware = (ctx) => {
  ctx.body = { ok: true };
};
/** The two headers an allowed response carries, as constants: what they cost without any limiter logic. */
const constantHeaders: Middleware = (ctx, next) => {
  ctx.res.setHeader('RateLimit-Policy', '"default";q=1000000000;w=1');
  ctx.res.setHeader('RateLimit', '"default";r=999999999;t=1');
  return next();
};

/**
 * The least any limiter of this declaration does, written inline: one clock read, one store hit, the two headers.
 * Not a usable limiter (no denial path, no options); it is the floor the real middleware is compared with.
 * Its key is the middleware's: `rl:<endpoint>:ip:` and the address as `ipKey` writes it (IPv4 as is, IPv4-mapped
 * as IPv4, other IPv6 as its /56 network, `2001:db8:1:200::/56`), so both do the same work per request.
 */
const floorStore = new MemoryStore({ sweepIntervalMs: 0 });
const inlineFloor: Middleware = (ctx, next) => {
  const now = Date.now();
  const hit = floorStore.hitSync(ipKey(ctx.ip), 1_000, declaration.limit, now, 'rl:GET /route-floor:ip:');
  ctx.res.setHeader('RateLimit-Policy', '"default";q=1000000000;w=1');
  ctx.res.setHeader('RateLimit', `"default";r=${declaration.limit - hit.count};t=${Math.ceil((hit.oldestMs + 1_000 - now) / 1_000)}`);
  return next();
};

/**
 * One app with one `@koa/router` route per variant (how the README mounts the limiter): a single Koa app, so the
 * variants differ only in their route middleware. (Six apps in one process left Koa's shared code megamorphic
 * and made two identical apps differ by up to 3%.)
 */
function routesApp(): Koa {
  const router = new Router();
  router.get('/route', hello);
  router.get('/route-copy', hello);
  router.get('/route-headers', constantHeaders, hello);
  router.get('/route-floor', inlineFloor, hello);
  router.get('/route-limited', rateLimit(declaration), hello);
  const app = trustingOneProxy(new Koa());
  app.use(router.routes());
  return app;
}

/** The handler as app middleware, no router: the limiter then also parses the path (ctx.path) for its key. */
function appWide(...before: Middleware[]): Koa {
  const app = trustingOneProxy(new Koa());
  for (const middleware of before) app.use(middleware);
  return app.use(hello);
}

function trustingOneProxy(app: Koa): Koa {
  app.proxy = true;
  app.maxIpsCount = 1;
  return app;
}

/** Every variant the benchmark can load: the app that serves it and the path. */
const TARGETS = {
  route: ['routes', '/route'],
  'route-copy': ['routes', '/route-copy'],
  'route-headers': ['routes', '/route-headers'],
  'route-floor': ['routes', '/route-floor'],
  'route-limited': ['routes', '/route-limited'],
  app: ['app', '/'],
  'app-limited': ['app-limited', '/'],
} as const satisfies Record<string, readonly [string, string]>;
export type Target = keyof typeof TARGETS;

const APPS: Record<(typeof TARGETS)[Target][0], () => Koa> = {
  routes: routesApp,
  app: () => appWide(),
  'app-limited': () => appWide(rateLimit(declaration)),
};

const listen = (app: Koa) =>
  new Promise<number>((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });

const targets = process.argv.slice(2) as Target[];
const ports = new Map<string, number>();
for (const target of targets) {
  const [app] = TARGETS[target];
  if (!ports.has(app)) ports.set(app, await listen(APPS[app]()));
}
const urls = targets.map((target) => [target, `http://127.0.0.1:${ports.get(TARGETS[target][0])}${TARGETS[target][1]}`]);
process.stdout.write(`${JSON.stringify(Object.fromEntries(urls))}\n`);
process.stdin.on('data', (chunk: Buffer) => {
  if (chunk.toString().includes('cpu')) {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`${user + system}\n`);
  }
});
process.stdin.on('close', () => process.exit(0));
