import { createHash } from 'node:crypto';
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';

const Column = z.object({ table: z.string(), column: z.string() });
const Digest = z.object({ digest: z.string().nullable(), rows: z.number() });

/** Columns through which a row belongs to an agency, directly or through its users or agents. */
const OWNER_COLUMNS = ['agency_id', 'organization_id', 'parent_id', 'user_id', 'agent_id'];

/**
 * A digest of every row that belongs to `agencyId`: rows with its id in an agency column, and
 * rows of its users and agents. Equal digests before and after the run: nothing of it changed.
 */
export async function snapshotAgency(db: DatabasePool, agencyId: string): Promise<Map<string, string>> {
  const columns = await db.any(sql.type(Column)`
    SELECT table_name AS "table", column_name AS "column"
    FROM information_schema.columns
    WHERE table_schema = 'public' AND column_name = ANY(${sql.array(OWNER_COLUMNS, 'text')})
    ORDER BY table_name, column_name`);
  const users = sql.fragment`(SELECT id FROM users WHERE organization_id = ${agencyId})`;
  const agents = sql.fragment`(SELECT id FROM agents WHERE agency_id = ${agencyId})`;
  const digests = new Map<string, string>();
  for (const { table, column } of [...columns, { table: 'organizations', column: 'id' }]) {
    const owned =
      column === 'user_id' ? sql.fragment`${sql.identifier([column])} IN ${users}`
      : column === 'agent_id' ? sql.fragment`${sql.identifier([column])} IN ${agents}`
      : sql.fragment`${sql.identifier([column])} = ${agencyId}`;
    const result = await db.one(sql.type(Digest)`
      SELECT md5(string_agg(row_text, E'\n' ORDER BY row_text)) AS digest, count(*)::int AS rows
      FROM (SELECT t::text AS row_text FROM ${sql.identifier([table])} AS t WHERE ${owned}) AS owned_rows`);
    digests.set(`${table}.${column}`, `${result.rows}:${result.digest ?? '-'}`);
  }
  return digests;
}

/** The tables whose rows of the agency differ between two snapshots. */
export function changedTables(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...before.keys()].filter((key) => before.get(key) !== after.get(key));
}

export const fingerprint = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 12);
