import { readdirSync, readFileSync } from 'node:fs';

/**
 * The catalog logos this service ships (`seeds/logos/<slug>.svg`, monograms made by
 * `seeds/make-logos.ts`), served at `/api/static/logos/<slug>.svg`. A catalog `logo` is one of
 * these paths (`logos/<slug>.svg`) or an https URL (docs/mcp.md, "Logos").
 */
const LOGO_DIR = new URL('../../seeds/logos/', import.meta.url);

/** The URL path a shipped logo is served at, below `/api`. */
export const LOGO_ROUTE_PREFIX = '/static/';

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

/** Why `logo` is not acceptable for a catalog entry, or undefined when it is ('' clears it). */
export function logoProblem(logo: string): string | undefined {
  if (logo === '' || shippedLogos().has(logo)) return undefined;
  if (logo.startsWith('logos/')) return `is not a shipped logo (shipped: logos/<slug>.svg of the seeded entries)`;
  let url: URL;
  try {
    url = new URL(logo);
  } catch {
    return 'must be a shipped logo path such as logos/github.svg or an https URL';
  }
  if (url.protocol !== 'https:' || url.hostname === '' || url.username !== '' || url.password !== '') {
    return 'must be a shipped logo path such as logos/github.svg or an https URL';
  }
  return undefined;
}
