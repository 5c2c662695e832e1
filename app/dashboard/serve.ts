import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import type { Context, Middleware, Next } from 'koa';
import { HttpError, notFound } from '../core/errors.ts';

/** Path of the page; its assets are below `/dashboard/assets/`. Outside `/api`, so not in the OpenAPI document. */
export const DASHBOARD_PATH = '/dashboard';

/** Where `npm run build:dashboard` (run by `npm start`) writes the built page. */
export const DEFAULT_DASHBOARD_ROOT = resolve('dashboard', 'dist');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Same origin only: the page loads its own script and stylesheet and calls its own API. Styles set
 * through the CSSOM (uPlot's sizing, the heatmap's shades) are not affected by `style-src`. Images
 * may also come from any https URL: an agency's logo (docs/billing.md, "Branding") is a URL the
 * browser loads, never the server; no script or connection goes anywhere but the page's origin.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export type File = { body: Buffer; type: string; etag: string };
type Build = { index: File; assets: Map<string, File> };

async function readBuild(root: string): Promise<Build> {
  const index = await readFile(join(root, 'index.html'));
  const assets = new Map<string, File>();
  for (const name of await readdir(join(root, 'assets'))) {
    const type = TYPES[extname(name)];
    if (type) assets.set(name, file(await readFile(join(root, 'assets', name)), type));
  }
  return { index: file(index, 'text/html; charset=utf-8'), assets };
}

export const file = (body: Buffer, type: string): File => ({
  body,
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
});

export function send(ctx: Context, content: File, cacheControl: string): void {
  ctx.set('Cache-Control', cacheControl);
  ctx.set('ETag', content.etag);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = content.type;
  if (ctx.get('If-None-Match') === content.etag) {
    ctx.status = 304;
    return;
  }
  ctx.body = content.body;
}

export type DashboardOptions = {
  /** Folder of the built page (`index.html` and `assets/`). Default: `dashboard/dist` of the working directory. */
  root?: string;
};

/**
 * Serves the built dashboard: `GET /dashboard` is the page (`no-cache`, revalidated by ETag, with
 * a same-origin Content-Security-Policy), `GET /dashboard/assets/<name>` the content-hashed files
 * (a year, `immutable`). Only files found in the build are served; any other name is a 404.
 * The build is read once; a missing build is a 503 that says how to make it.
 */
export function dashboard(options: DashboardOptions = {}): Middleware {
  const root = options.root ?? DEFAULT_DASHBOARD_ROOT;
  let build: Promise<Build> | undefined;
  const loaded = () => {
    build ??= readBuild(root).catch((error: unknown) => {
      build = undefined;
      throw error;
    });
    return build;
  };

  return async function serveDashboard(ctx: Context, next: Next): Promise<void> {
    const path = ctx.path;
    if (path !== DASHBOARD_PATH && !path.startsWith(`${DASHBOARD_PATH}/`)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new HttpError(405, 'Method not allowed');
    }
    let current: Build;
    try {
      current = await loaded();
    } catch {
      throw new HttpError(503, 'The dashboard is not built: run `npm run build:dashboard` (npm start does it)');
    }
    if (path === DASHBOARD_PATH || path === `${DASHBOARD_PATH}/`) {
      ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      ctx.set('Referrer-Policy', 'no-referrer');
      send(ctx, current.index, 'no-cache');
      return;
    }
    const asset = path.startsWith(`${DASHBOARD_PATH}/assets/`)
      ? current.assets.get(path.slice(`${DASHBOARD_PATH}/assets/`.length))
      : undefined;
    if (!asset) throw notFound(`Route ${ctx.method} ${path}`);
    send(ctx, asset, 'public, max-age=31536000, immutable');
  };
}
