// Child process for the Koa overhead benchmark: one process serving several Koa apps, one port each, so that
// every variant shares the same heap, JIT state and core (separate processes differ by a few percent on their own).
// argv: the app names to serve. Prints `{"<name>": <port>, ...}` once listening; the line `cpu` on stdin answers
// with this process's CPU time in microseconds; exits when stdin closes.
import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { rateLimit } from '../src/index.ts';

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

/** A `@koa/router` route `GET /` (how the README mounts the limiter), optionally behind route middleware. */
function routeApp(...before: Middleware[]): Koa {
  const router = new Router();
  router.get('/', ...before, hello);
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

const APPS = {
  route: () => routeApp(),
  'route-copy': () => routeApp(),
  'route-headers': () => routeApp(constantHeaders),
  'route-limited': () => routeApp(rateLimit(declaration)),
  app: () => appWide(),
  'app-limited': () => appWide(rateLimit(declaration)),
} satisfies Record<string, () => Koa>;
export type AppName = keyof typeof APPS;

const names = process.argv.slice(2) as AppName[];
const ports = await Promise.all(
  names.map(
    (name) =>
      new Promise<[AppName, number]>((resolve) => {
        const server = APPS[name]().listen(0, '127.0.0.1', () => resolve([name, (server.address() as { port: number }).port]));
      }),
  ),
);
process.stdout.write(`${JSON.stringify(Object.fromEntries(ports))}\n`);
process.stdin.on('data', (chunk: Buffer) => {
  if (chunk.toString().includes('cpu')) {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`${user + system}\n`);
  }
});
process.stdin.on('close', () => process.exit(0));
