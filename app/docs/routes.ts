import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '../core/route.ts';
import { StrictObject } from '../core/schemas.ts';

/** Swagger UI's files, served from our own process (no CDN). */
const ASSETS = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'application/javascript',
} as const;
type Asset = keyof typeof ASSETS;

// The package's folder, found without loading its index (which loads a 1.4 MB bundle at every start).
const assetRoot = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const assetCache = new Map<Asset, Buffer>();
const readAsset = (name: Asset) => {
  let content = assetCache.get(name);
  if (!content) {
    content = readFileSync(join(assetRoot, name));
    assetCache.set(name, content);
  }
  return content;
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Agents backend API</title>
  <link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/api/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/api/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n`;

export function docsRoutes(openApiDocument: () => Record<string, unknown>): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      summary: 'The OpenAPI 3.1 document of this API',
      tags: ['docs'],
      auth: 'public',
      responses: { 200: { description: 'OpenAPI document' } },
      handler: () => openApiDocument(),
    }),
    defineRoute({
      method: 'GET',
      path: '/docs',
      summary: 'Interactive API documentation (Swagger UI)',
      tags: ['docs'],
      auth: 'public',
      responses: { 200: { description: 'HTML page' } },
      handler: ({ ctx }) => {
        ctx.type = 'text/html';
        return PAGE;
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/docs/init.js',
      summary: 'Swagger UI start-up script',
      tags: ['docs'],
      auth: 'public',
      responses: { 200: { description: 'JavaScript' } },
      handler: ({ ctx }) => {
        ctx.type = 'application/javascript';
        return INIT;
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/docs/assets/:asset',
      summary: 'Swagger UI assets',
      tags: ['docs'],
      auth: 'public',
      schemas: { params: StrictObject({ asset: Type.Union(Object.keys(ASSETS).map((name) => Type.Literal(name))) }) },
      responses: { 200: { description: 'CSS or JavaScript' } },
      handler: ({ params, ctx }) => {
        const asset = params.asset as Asset;
        ctx.type = ASSETS[asset];
        ctx.set('Cache-Control', 'public, max-age=86400');
        return readAsset(asset);
      },
    }),
  ];
}
