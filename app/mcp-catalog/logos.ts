import { readdirSync, readFileSync } from 'node:fs';

/**
 * The catalog logos this service ships (`app/mcp-catalog/logos/<slug>.svg`, monograms made by
 * `bin/make-logos.ts`), served at `/api/static/logos/<slug>.svg`, beside the logos uploaded
 * for an entry (`logos/<id>.<png|jpg|webp>`, stored in PostgreSQL). A catalog `logo` is a
 * relative path to an image, resolved against `/api/static/`, or an https URL (docs/mcp.md, "Logos").
 */
const LOGO_DIR = new URL('./logos/', import.meta.url);

let shipped: Map<string, Buffer> | undefined;

/** `logos/<slug>.svg` -> file contents, read once. */
export function shippedLogos(): Map<string, Buffer> {
  shipped ??= new Map(
    readdirSync(LOGO_DIR)
      .filter((file) => /^[a-z0-9-]+\.svg$/.test(file))
      .map((file) => [`logos/${file}`, readFileSync(new URL(file, LOGO_DIR))]),
  );
  return shipped;
}

/** Longest relative logo path (characters). */
export const RELATIVE_LOGO_MAX_LENGTH = 255;

const SEGMENT = '[A-Za-z0-9_~@+-]+(?:\\.[A-Za-z0-9_~@+-]+)*';
const IMAGE_EXTENSION = '(?:svg|png|jpe?g|webp|gif|avif|SVG|PNG|JPE?G|WEBP|GIF|AVIF)';

/**
 * A relative path to an image: segments of letters, digits and `_~@+-` joined by single dots
 * (so never `..`), separated by `/`, ending in an image extension. No scheme (no `:`), no
 * leading slash, no backslash, no query or fragment.
 */
export const RELATIVE_LOGO_PATTERN = `^(?:${SEGMENT}/)*${SEGMENT}\\.${IMAGE_EXTENSION}$`;

const HOST_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** An https URL with a DNS host name (no user info, no port) and any path, query or fragment without spaces or controls. */
export const HTTPS_LOGO_PATTERN = `^https://${HOST_LABEL}(?:\\.${HOST_LABEL})*(?:[/?#][\\x21-\\x7e]*)?$`;

export const LOGO_RULE = `must be empty, a relative path to an image of at most ${RELATIVE_LOGO_MAX_LENGTH} characters (such as logos/github.svg) or an https URL`;
