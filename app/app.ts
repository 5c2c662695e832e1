import { createServer, type Server } from 'node:http';
import Koa from 'koa';
import type { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import type { DatabasePool } from 'slonik';
import type { Config } from './config.ts';
import { corsFor } from './core/cors.ts';
import { systemTimers, type AppDeps, type Timers } from './core/deps.ts';
import { ReplicaReads } from './db/replica.ts';
import { answerClientErrors, ignoreBodyOfBodilessMethods } from './core/client-errors.ts';
import { errorMiddleware } from './core/error-middleware.ts';
import { hardenLogger } from './core/log-safety.ts';
import { methodNotAllowed } from './core/methods.ts';
import type { Store } from '@agents/rate-limit';
import { buildRouter } from './core/mount.ts';
import { buildOpenApiDocument } from './core/openapi.ts';
import { requestId } from './core/request-id.ts';
import { requestLog } from './core/request-log.ts';
import type { Route } from './core/route.ts';
import { entryRedirects } from './dashboard/entry.ts';
import { dashboard } from './dashboard/serve.ts';
import { widget } from './dashboard/widget.ts';
import { ACCESS_TOKEN_TTL_SECONDS } from './identity/tokens.ts';
import { docsRoutes } from './docs/routes.ts';
import { createRateLimitStore } from './core/route-rate-limit.ts';
import { areaRoutes } from './routes.ts';

export type CreateAppOptions = {
  db: DatabasePool;
  /** A pool on a streaming replica of `db` (DATABASE_REPLICA_URL), for reads that tolerate staleness. */
  replica?: DatabasePool;
  redis?: Redis;
  config: Config;
  clock?: () => Date;
  timers?: Timers;
  logger?: Logger;
  /** Access-token lifetime in seconds. Default 900 (15 minutes); tests of token expiry shorten it. */
  accessTokenTtlSeconds?: number;
  /**
   * Whether each route's declared `rateLimit` is enforced (ADR 0100). Default true; the benches,
   * the fuzzer and most tests turn it off (test/helpers/app.ts).
   */
  rateLimits?: boolean;
  /** The one store every limiter counts in. Default: Redis when configured, else memory (`createRateLimitStore`). */
  rateLimitStore?: Store;
  /**
   * The area routes to serve. Default: every area's (app/routes.ts). A test that needs another
   * declaration (a tighter limit on one route) passes altered copies; the app adds the docs routes.
   */
  routes?: readonly Route[];
  /** Folder of the built dashboard page. Default: `dashboard/dist` (see app/dashboard/serve.ts). */
  dashboardRoot?: string;
};

export type App = Koa & { deps: AppDeps; routes: Route[] };

/** Builds the Koa application. No global state: every call gets its own deps and routes. */
export function createApp(options: CreateAppOptions): App {
  const logger = hardenLogger(options.logger ?? pino({ level: options.config.logLevel }));
  const deps: AppDeps = {
    db: options.db,
    redis: options.redis,
    config: options.config,
    clock: options.clock ?? (() => new Date()),
    timers: options.timers ?? systemTimers,
    logger,
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? ACCESS_TOKEN_TTL_SECONDS,
    replica:
      options.replica &&
      new ReplicaReads({ primary: options.db, replica: options.replica, maxLagMs: options.config.replicaMaxLagMs, logger }),
  };

  // ctx.ip: the socket address, or with TRUST_PROXY_HOPS = n the n-th X-Forwarded-For entry from the right.
  const hops = options.config.trustProxyHops;
  const app = new Koa({ proxy: hops > 0, maxIpsCount: hops }) as App;
  let document: Record<string, unknown> | undefined;
  const routes: Route[] = [
    ...(options.routes ?? areaRoutes),
    ...docsRoutes(() => (document ??= buildOpenApiDocument(mounted, { title: 'Agents backend API', version: '0.1.0' }))),
  ];
  const mounted = routes.filter((route) => !route.enabled || route.enabled(deps));
  const rateLimitStore = options.rateLimits === false ? undefined : (options.rateLimitStore ?? createRateLimitStore(deps));
  const router = buildRouter(mounted, deps, rateLimitStore);

  app.on('error', (error: Error, ctx?: Koa.Context) => {
    logger.error({ err: error, requestId: ctx?.state.requestId }, 'unhandled error');
  });

  app.use(requestId);
  app.use(requestLog(logger));
  // Outside the error middleware, so error answers (429 included) carry the CORS headers too;
  // before everything else, so a preflight never reaches a limiter (app/core/cors.ts).
  for (const middleware of corsFor(options.config.corsOrigins)) app.use(middleware);
  app.use(errorMiddleware);
  app.use(entryRedirects());
  app.use(dashboard({ root: options.dashboardRoot }));
  app.use(widget(deps, { root: options.dashboardRoot }));
  // The JSON body is parsed per route, after its rate limiter (app/core/mount.ts).
  app.use(ignoreBodyOfBodilessMethods);
  app.use(methodNotAllowed(router));
  app.use(router.routes());

  // Every server of this app answers what Node's HTTP parser refuses without logging its bytes.
  app.listen = ((...args: Parameters<Server['listen']>) => {
    const server = createServer(app.callback());
    answerClientErrors(server, logger);
    return server.listen(...args);
  }) as Koa['listen'];

  app.deps = deps;
  app.routes = mounted;
  return app;
}
