import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';

const Column = z.object({ table: z.string(), column: z.string() });
const RowText = z.object({ row_text: z.string() });

/** Columns through which a row belongs to an agency, directly or through its users or agents. */
const OWNER_COLUMNS = ['agency_id', 'organization_id', 'parent_id', 'user_id', 'agent_id'];

/**
 * A digest of every row that belongs to `agencyId`: rows with its id in an agency column, and
 * rows of its users and agents. Equal digests before and after the run: nothing of it changed.
 */
export async function snapshotAgency(db: DatabasePool, agencyId: string): Promise<Map<string, string[]>> {
  const columns = await db.any(sql.type(Column)`
    SELECT table_name AS "table", column_name AS "column"
    FROM information_schema.columns
    WHERE table_schema = 'public' AND column_name = ANY(${sql.array(OWNER_COLUMNS, 'text')})
    ORDER BY table_name, column_name`);
  const users = sql.fragment`(SELECT id FROM users WHERE organization_id = ${agencyId})`;
  const agents = sql.fragment`(SELECT id FROM agents WHERE agency_id = ${agencyId})`;
  const snapshot = new Map<string, string[]>();
  for (const { table, column } of [...columns, { table: 'organizations', column: 'id' }]) {
    const owned =
      column === 'user_id'
        ? sql.fragment`${sql.identifier([column])} IN ${users}`
        : column === 'agent_id'
          ? sql.fragment`${sql.identifier([column])} IN ${agents}`
          : sql.fragment`${sql.identifier([column])} = ${agencyId}`;
    const rows = await db.any(sql.type(RowText)`
      SELECT t::text AS row_text FROM ${sql.identifier([table])} AS t WHERE ${owned} ORDER BY 1`);
    snapshot.set(
      `${table}.${column}`,
      rows.map((row) => row.row_text),
    );
  }
  return snapshot;
}

/** What differs between two snapshots, one line per changed table with a removed and an added row. */
export function changedTables(before: Map<string, string[]>, after: Map<string, string[]>): string[] {
  const changes: string[] = [];
  for (const [key, rows] of before) {
    const now = after.get(key) ?? [];
    const removed = rows.filter((row) => !now.includes(row));
    const added = now.filter((row) => !rows.includes(row));
    if (removed.length || added.length) {
      changes.push(
        `${key} (-${removed.length} +${added.length}: was ${removed[0]?.slice(0, 200) ?? '-'}; now ${added[0]?.slice(0, 200) ?? '-'})`,
      );
    }
  }
  return changes;
}
