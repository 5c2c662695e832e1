import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context, Middleware, Next } from 'koa';
import { findChannelByKey } from '../../sql/channels.ts';
import type { AppDeps } from '../core/deps.ts';
import { HttpError } from '../core/errors.ts';
import { CONTENT_SECURITY_POLICY, DEFAULT_DASHBOARD_ROOT, file, send, type File } from './serve.ts';

/** The web channel's script (docs/channel.md, "The widget"). Outside `/api`, so not in the OpenAPI document. */
export const WIDGET_PATH = '/widget.js';

/** A channel's share page is `/chat/<publishableKey>`. */
const SHARE_PAGE = /^\/chat\/(agp_[0-9A-Za-z]{32})\/?$/;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** The share page: the widget as a whole page (`data-page`), titled with the agent's name. */
const sharePage = (title: string, publishableKey: string) =>
  file(
    Buffer.from(
      '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n<link rel="icon" href="data:,">\n' +
        `<title>${escapeHtml(title)}</title>\n</head>\n<body>\n` +
        `<script src="${WIDGET_PATH}" data-key="${publishableKey}" data-page async></script>\n</body>\n</html>\n`,
    ),
    'text/html; charset=utf-8',
  );

/**
 * `GET /widget.js`, the widget built by `npm run build:dashboard` into the dashboard's folder: any
 * page may load it (`Access-Control-Allow-Origin: *`, `Cross-Origin-Resource-Policy: cross-origin`;
 * it carries no credential), cached for 5 minutes and revalidated by ETag, since pages paste its
 * fixed URL. `GET /chat/:publishableKey`, the share page: the chat of an enabled channel of an agent
 * in use as a whole page on the service's own origin (which every channel allows), else a 404.
 */
export function widget(deps: Pick<AppDeps, 'db'>, options: { root?: string } = {}): Middleware {
  const root = options.root ?? DEFAULT_DASHBOARD_ROOT;
  let script: Promise<File> | undefined;
  const loaded = () => {
    script ??= readFile(join(root, 'widget.js')).then(
      (body) => file(body, 'text/javascript; charset=utf-8'),
      (error: unknown) => {
        script = undefined;
        throw error;
      },
    );
    return script;
  };

  return async function serveWidget(ctx: Context, next: Next): Promise<void> {
    const key = SHARE_PAGE.exec(ctx.path)?.[1];
    if (ctx.path !== WIDGET_PATH && key === undefined) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new HttpError(405, 'Method not allowed');
    }
    if (key === undefined) {
      let content: File;
      try {
        content = await loaded();
      } catch {
        throw new HttpError(503, 'The widget is not built: run `npm run build:dashboard` (npm start does it)');
      }
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
      send(ctx, content, 'public, max-age=300');
      return;
    }
    const channel = await findChannelByKey(deps.db, key);
    // The console's policy: only the service's own widget, calling only its own API (the widget's
    // constructed stylesheets are not governed by `style-src`).
    ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    ctx.set('Referrer-Policy', 'no-referrer');
    if (!channel) {
      ctx.status = 404;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = '<!doctype html>\n<html lang="en">\n<title>Chat not found</title>\n<p>This chat is not available.</p>\n</html>\n';
      return;
    }
    send(ctx, sharePage(channel.agentName, key), 'no-cache');
  };
}
