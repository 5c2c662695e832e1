import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import type { CommonQueryMethods } from 'slonik';
import { compileValidator } from '../app/core/validation.ts';
import { checkVariants } from '../app/mcp-catalog/rules.ts';
import { CreateAvailableMcpBody, type Variant } from '../app/mcp-catalog/schemas.ts';
import { insertSeedEntryIfAbsent, type SeedEntry } from '../sql/available-mcps.ts';

/** The curated entries: data in `seeds/mcp-catalog.json`, from the seed facts table in `test/mcp-catalog/fixtures/`. */
export const CATALOG_SEED_FILE = new URL('./mcp-catalog.json', import.meta.url);

/** 23 curated entries (docs/mcp.md, "The 23-entry seed"); a 24th slot is deliberately left empty. */
export const CATALOG_SEED_SIZE = 23;

const SeedFile = Type.Array(
  Type.Composite([
    Type.Object({ seedKey: Type.String({ pattern: '^[a-z0-9-]+$' }) }),
    Type.Omit(CreateAvailableMcpBody, ['description', 'logo']),
    Type.Object({ description: Type.String({ maxLength: 100 }), logo: Type.String({ pattern: '^logos/[a-z0-9-]+\\.svg$' }) }),
  ]),
  { minItems: CATALOG_SEED_SIZE, maxItems: CATALOG_SEED_SIZE },
);

/**
 * Reads the seed file and holds it to the same rules as an admin's POST (plus: at most 100
 * characters of description, a `logos/<slug>.svg` logo, unique seed keys and names), so a bad
 * edit of the data fails loudly instead of seeding a broken entry.
 */
export function loadCatalogSeed(): SeedEntry[] {
  const entries = compileValidator('body', SeedFile)(JSON.parse(readFileSync(CATALOG_SEED_FILE, 'utf8'))) as SeedEntry[];
  const keys = new Set<string>();
  const names = new Set<string>();
  for (const entry of entries) {
    checkVariants(entry.variants as Variant[], true);
    if (keys.has(entry.seedKey) || names.has(entry.name.toLowerCase())) {
      throw new Error(`catalog seed: "${entry.seedKey}" / "${entry.name}" appears twice`);
    }
    keys.add(entry.seedKey);
    names.add(entry.name.toLowerCase());
  }
  return entries;
}

/**
 * Inserts the curated entries that are absent (ADR 0031): an entry is skipped when a row with
 * its seed key exists (even renamed or soft-deleted by an admin) or when its name is taken.
 * Rows are never modified. Safe when several instances run it at once: each insert is one
 * statement that the unique indexes arbitrate. Answers how many rows were inserted.
 */
export async function seedCatalog(db: CommonQueryMethods, log: (message: string) => void = () => {}): Promise<number> {
  let inserted = 0;
  for (const entry of loadCatalogSeed()) {
    if (await insertSeedEntryIfAbsent(db, entry)) inserted += 1;
  }
  log(`MCP catalog seed: ${inserted} entr${inserted === 1 ? 'y' : 'ies'} inserted, ${CATALOG_SEED_SIZE - inserted} already present`);
  return inserted;
}
