import type { Middleware } from 'koa';
import { binaryBody } from './binary-body.ts';
import { encodingGate } from './content-encoding.ts';
import { jsonBody } from './json-body.ts';
import { apiKeyAccessOf, type OtlpBody, type Route, type RouteBody } from './route.ts';
import { uploadBody } from './upload-body.ts';

/** What a route's body is when it declares none: JSON of at most `BODY_LIMIT_BYTES`. */
const DEFAULT_BODY: RouteBody = { kind: 'json' };

/** Content-Encodings each kind's reader inflates (bounded by the route's limit on the inflated bytes). */
const INFLATED: Record<RouteBody['kind'], readonly string[]> = {
  json: ['gzip', 'deflate'],
  binary: [],
  otlp: ['gzip'],
  multipart: [],
};

/**
 * The Content-Encodings a route accepts: none unless it takes an API key (an ingestion route,
 * whose clients compress by default), else what its body's reader inflates. The gate and the
 * OpenAPI document (app/core/openapi.ts) both read this.
 */
export function acceptedEncodings(route: Pick<Route, 'auth' | 'body'>): readonly string[] {
  return apiKeyAccessOf(route.auth) ? INFLATED[(route.body ?? DEFAULT_BODY).kind] : [];
}

/**
 * The links that read a route's body, in order: its Content-Encoding gate, then the one reader of
 * its declared kind (`RouteBody`), which leaves the body in `ctx.request.body`. Each reader skips
 * a body already read, so a route run again after a lost database connection reads nothing twice.
 */
export function bodyLinks(route: Route, bodyLimitBytes: number): Middleware[] {
  const body = route.body ?? DEFAULT_BODY;
  const gate = encodingGate(acceptedEncodings(route));
  switch (body.kind) {
    case 'json':
      return [gate, jsonBody(body.limitBytes ?? bodyLimitBytes)];
    case 'binary':
      return [gate, binaryBody(body)];
    case 'otlp':
      return [gate, readWith(body)];
    case 'multipart':
      return [gate, uploadBody(body.limitBytes)];
  }
}

/** The link of an `otlp` body: the route's own reader, after the gate, its limit the declared one. */
function readWith(body: OtlpBody<unknown>): Middleware {
  return async (ctx, next) => {
    // Already read: a route run a second time after a lost database connection.
    if (ctx.request.body === undefined) ctx.request.body = await body.read(ctx, body.limitBytes);
    await next();
  };
}
