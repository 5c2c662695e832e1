import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { findLogoImage, saveLogoImage } from '../../sql/available-mcp-logos.ts';
import { setAvailableMcpLogo } from '../../sql/available-mcps.ts';
import { HttpError, notFound } from '../core/errors.ts';
import { matchesIfNoneMatch, NotModified } from '../core/not-modified.ts';
import { defineRoute } from '../core/route.ts';
import { ErrorBody, StrictObject, UUID_V7_LOWERCASE as UUID_V7, UuidParam, ValidationErrorBody } from '../core/schemas.ts';
import { LOGO_IMAGE_MAX_BYTES, sniffLogoImage, UPLOADED_LOGO_KINDS } from './logo-image.ts';
import { shippedLogos } from './logos.ts';
import { AvailableMcpDto } from './schemas.ts';

const uploadedName = new RegExp(`^(${UUID_V7})\\.(png|jpg|webp)$`);

/** Uploaded logos can be replaced under the same name: caches revalidate with the ETag every time. */
const UPLOADED_CACHE_CONTROL = 'public, no-cache';

export const logoRoutes = [
  defineRoute({
    method: 'GET',
    path: '/static/logos/:file',
    summary: 'A catalog logo: shipped with the service (SVG) or uploaded for an entry (PNG, JPEG, WebP)',
    description:
      'The image of a catalog `logo` of the form `logos/<slug>.svg` (shipped; public and cacheable for a year) or ' +
      '`logos/<id>.<png|jpg|webp>` (uploaded; served with a strong `ETag`, revalidated on every use, 304 for a matching ' +
      "`If-None-Match`). Every logo is served with `X-Content-Type-Options: nosniff` and `Content-Security-Policy: default-src 'none'`.",
    tags: ['available-mcps'],
    auth: 'public',
    schemas: {
      params: StrictObject({ file: Type.String({ pattern: `^(?:[a-z0-9-]+\\.svg|${UUID_V7}\\.(?:png|jpg|webp))$`, maxLength: 100 }) }),
    },
    responses: {
      200: { description: 'image/svg+xml, image/png, image/jpeg or image/webp' },
      304: { description: 'The uploaded logo still has the ETag given in If-None-Match' },
      400: { description: 'Not a logo file name', schema: ValidationErrorBody },
      404: { description: 'No such logo', schema: ErrorBody },
    },
    handler: async ({ params, ctx, deps }) => {
      ctx.set('x-content-type-options', 'nosniff');
      const upload = uploadedName.exec(params.file);
      if (!upload) {
        const image = shippedLogos().get(`logos/${params.file}`);
        if (!image) throw notFound('Logo');
        ctx.type = 'image/svg+xml';
        // The files change only with a release; a new image gets a new name.
        ctx.set('cache-control', 'public, max-age=31536000, immutable');
        // An SVG opened directly must not run script (ours have none; defence in depth).
        ctx.set('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
        return image;
      }
      const kind = UPLOADED_LOGO_KINDS[upload[2]!]!;
      const stored = await findLogoImage(deps.db, upload[1]!, kind.mediaType);
      if (!stored) throw notFound('Logo');
      const etag = `"${stored.sha256.toString('base64url')}"`;
      ctx.set('etag', etag);
      ctx.set('cache-control', UPLOADED_CACHE_CONTROL);
      ctx.set('content-security-policy', "default-src 'none'");
      if (matchesIfNoneMatch(ctx.get('if-none-match'), etag)) return new NotModified();
      ctx.type = kind.mediaType;
      return stored.image;
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/available-mcps/:id/logo',
    summary: "Upload a catalog entry's logo (PNG, JPEG or WebP, at most 256 KB)",
    description:
      'The body is the image itself. Its type is decided by its first bytes, not by `Content-Type`; SVG and anything else ' +
      "is a 415. The image is stored and served at `/api/static/logos/<id>.<png|jpg|webp>`, and the entry's `logo` becomes " +
      '`logos/<id>.<png|jpg|webp>` in the same transaction. A new upload replaces the previous one. A soft-deleted entry can ' +
      'be given a logo too.',
    tags: ['available-mcps'],
    auth: 'jwt',
    policy: { subject: 'platform.ai.available-mcp', action: 'update' },
    schemas: { params: UuidParam('id') },
    body: {
      kind: 'binary',
      mediaTypes: Object.values(UPLOADED_LOGO_KINDS).map((kind) => kind.mediaType),
      limitBytes: LOGO_IMAGE_MAX_BYTES,
      description: 'A PNG, JPEG or WebP image of at most 256 KB (262,144 bytes)',
    },
    responses: {
      200: { description: 'The entry with its new logo', schema: AvailableMcpDto },
      404: { description: 'No entry with this id', schema: ErrorBody },
      413: { description: 'The image is larger than 256 KB', schema: ErrorBody },
      415: { description: 'The body is not a PNG, JPEG or WebP image', schema: ErrorBody },
    },
    handler: async ({ deps, params, body: bytes }) => {
      const kind = sniffLogoImage(bytes);
      if (!kind) throw new HttpError(415, 'The logo must be a PNG, JPEG or WebP image (SVG is not accepted)');
      const sha256 = createHash('sha256').update(bytes).digest();
      const row = await deps.db.transaction(async (tx) => {
        const entry = await setAvailableMcpLogo(tx, params.id, `logos/${params.id}.${kind.extension}`);
        if (entry) await saveLogoImage(tx, params.id, { mediaType: kind.mediaType, bytes, sha256 });
        return entry;
      });
      if (!row) throw notFound('Catalog entry');
      return row;
    },
  }),
];
