import { Type } from '@sinclair/typebox';
import { notFound } from '../core/errors.ts';
import { defineRoute } from '../core/route.ts';
import { ErrorBody, StrictObject, ValidationErrorBody } from '../core/schemas.ts';
import { shippedLogos } from './logos.ts';

export const logoRoutes = [
  defineRoute({
    method: 'GET',
    path: '/static/logos/:file',
    summary: 'A catalog logo shipped with the service (SVG)',
    description: 'The image of a catalog `logo` of the form `logos/<slug>.svg`. Public and cacheable for a year.',
    tags: ['available-mcps'],
    auth: 'public',
    schemas: { params: StrictObject({ file: Type.String({ pattern: '^[a-z0-9-]+\\.svg$', maxLength: 100 }) }) },
    responses: {
      200: { description: 'image/svg+xml' },
      400: { description: 'Not a logo file name', schema: ValidationErrorBody },
      404: { description: 'No such logo', schema: ErrorBody },
    },
    handler: ({ params, ctx }) => {
      const image = shippedLogos().get(`logos/${params.file}`);
      if (!image) throw notFound('Logo');
      ctx.type = 'image/svg+xml';
      // The files change only with a release; a new image gets a new name.
      ctx.set('cache-control', 'public, max-age=31536000, immutable');
      ctx.set('x-content-type-options', 'nosniff');
      // An SVG opened directly must not run script (ours have none; defence in depth).
      ctx.set('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
      return image;
    },
  }),
];
