import { sql, UniqueIntegrityConstraintViolationError, type CommonQueryMethods } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { IdRow } from './rows.ts';

/** The fields a catalog list may be sorted by (the query schema's `sort[].field`). */
export const SORT_FIELDS = ['createdAt', 'updatedAt', 'name'] as const;
export type SortField = (typeof SORT_FIELDS)[number];

// Variants are validated by the API schema before every write (ADR 0030); here they are read back as stored.
const AvailableMcpRow = z.strictObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  logo: z.string(),
  tags: z.array(z.string()),
  variants: z.array(z.any()),
  isActive: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type AvailableMcpRow = z.infer<typeof AvailableMcpRow>;

const columns = sql.fragment`
  id, name, description, logo, tags, variants, is_active AS "isActive",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** A write that would give two entries the same name (case-insensitive). */
export class NameTakenError extends Error {
  override name = 'NameTakenError';
}

const isNameViolation = (error: unknown) =>
  error instanceof UniqueIntegrityConstraintViolationError && error.constraint === 'available_mcps_name_key';

async function mapNameViolation<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isNameViolation(error)) throw new NameTakenError('name taken');
    throw error;
  }
}

const ORDER_EXPRESSIONS: Record<SortField, ReturnType<typeof sql.fragment>> = {
  createdAt: sql.fragment`created_at`,
  updatedAt: sql.fragment`updated_at`,
  name: sql.fragment`lower(name)`,
};

export type CatalogSort = { field: SortField; direction: 'asc' | 'desc' };

/** Active entries sharing at least one tag with `tags` (all when absent), in `sort` order, one page. */
export function listActiveAvailableMcps(
  db: CommonQueryMethods,
  filter: { tags: string[] | undefined; sort: CatalogSort[]; offset: number; limit: number },
) {
  const tagFilter = filter.tags ? sql.fragment`AND tags && ${sql.array(filter.tags, 'text')}` : sql.fragment``;
  const keys = filter.sort.map(
    ({ field, direction }) => sql.fragment`${ORDER_EXPRESSIONS[field]} ${direction === 'asc' ? sql.fragment`ASC` : sql.fragment`DESC`}`,
  );
  // The id breaks ties so that pages never overlap or skip; it follows the last key's direction.
  const last = filter.sort.at(-1)?.direction ?? 'desc';
  keys.push(last === 'asc' ? sql.fragment`id ASC` : sql.fragment`id DESC`);
  return db.any(sql.type(AvailableMcpRow)`
    SELECT ${columns} FROM available_mcps
    WHERE is_active ${tagFilter}
    ORDER BY ${sql.join(keys, sql.fragment`, `)}
    OFFSET ${filter.offset} LIMIT ${filter.limit}`);
}

export type NewAvailableMcp = {
  name: string;
  description: string;
  logo: string;
  tags: string[];
  variants: unknown[];
};

/** Inserts an entry; throws NameTakenError when the name is taken (checked by the unique index, race-free). */
export function insertAvailableMcp(db: CommonQueryMethods, entry: NewAvailableMcp) {
  return mapNameViolation(() =>
    db.one(sql.type(AvailableMcpRow)`
      INSERT INTO available_mcps (id, name, description, logo, tags, variants)
      VALUES (${uuidv7()}, ${entry.name}, ${entry.description}, ${entry.logo},
              ${sql.array(entry.tags, 'text')}, ${sql.jsonb(entry.variants as never)})
      RETURNING ${columns}`),
  );
}

/** Changes only the given fields; null when there is no entry with this id (active or not). */
export function updateAvailableMcp(db: CommonQueryMethods, id: string, change: Partial<NewAvailableMcp>) {
  const sets = [
    change.name !== undefined && sql.fragment`name = ${change.name}`,
    change.description !== undefined && sql.fragment`description = ${change.description}`,
    change.logo !== undefined && sql.fragment`logo = ${change.logo}`,
    change.tags !== undefined && sql.fragment`tags = ${sql.array(change.tags, 'text')}`,
    change.variants !== undefined && sql.fragment`variants = ${sql.jsonb(change.variants as never)}`,
  ].filter((set) => set !== false);
  return mapNameViolation(() =>
    db.maybeOne(sql.type(AvailableMcpRow)`
      UPDATE available_mcps SET ${sql.join([...sets, sql.fragment`updated_at = now()`], sql.fragment`, `)}
      WHERE id = ${id}
      RETURNING ${columns}`),
  );
}

/** Soft-deletes; a repeat leaves the row (and its updatedAt) as it is. Null for an unknown id. */
export function deactivateAvailableMcp(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(AvailableMcpRow)`
    UPDATE available_mcps
    SET is_active = false, updated_at = CASE WHEN is_active THEN now() ELSE updated_at END
    WHERE id = ${id}
    RETURNING ${columns}`);
}

/** The active entry with this id, if any (the agent MCP-server flow provisions only active entries). */
export function findActiveAvailableMcp(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(AvailableMcpRow)`
    SELECT ${columns} FROM available_mcps WHERE id = ${id} AND is_active`);
}

/** The entry with this id, active or soft-deleted (an agent's server keeps its variant's rules). */
export function findAvailableMcp(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(AvailableMcpRow)`SELECT ${columns} FROM available_mcps WHERE id = ${id}`);
}

export type SeedEntry = NewAvailableMcp & { seedKey: string };

/**
 * Inserts a curated entry unless its seed key or its name is already present (any unique
 * conflict: ON CONFLICT DO NOTHING without a target). Never modifies a row. True when inserted.
 */
export async function insertSeedEntryIfAbsent(db: CommonQueryMethods, entry: SeedEntry): Promise<boolean> {
  const inserted = await db.maybeOne(sql.type(IdRow)`
    INSERT INTO available_mcps (id, name, description, logo, tags, variants, seed_key)
    VALUES (${uuidv7()}, ${entry.name}, ${entry.description}, ${entry.logo},
            ${sql.array(entry.tags, 'text')}, ${sql.jsonb(entry.variants as never)}, ${entry.seedKey})
    ON CONFLICT DO NOTHING
    RETURNING id`);
  return inserted !== null;
}

/** Points an entry's `logo` at an uploaded image; null for an unknown id (active or not). */
export function setAvailableMcpLogo(db: CommonQueryMethods, id: string, logo: string) {
  return db.maybeOne(sql.type(AvailableMcpRow)`
    UPDATE available_mcps SET logo = ${logo}, updated_at = now()
    WHERE id = ${id}
    RETURNING ${columns}`);
}
