import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';

/** The relations that hold usage: the raw events (every partition), the rollups kept from them, the model numbers and the ingest keys. */
const ROOTS = [
  'usage_events',
  'usage_rollup_15m_source',
  'usage_rollup_15m_action',
  'usage_rollup_15m_model',
  'usage_rollup_day',
  'usage_models',
  'usage_ingest_keys',
];

const Part = z.strictObject({ name: z.string(), bytes: z.coerce.number() });

/**
 * Bytes on disk of every usage relation, as parts: each table's heap (with its free-space and
 * visibility maps, summed over partitions), its TOAST (table and index) and each index
 * (partitions' indexes counted under their parent's name). Relations absent from the schema
 * are skipped, so the same report reads an old and a new schema.
 */
export async function usageStorage(db: DatabasePool): Promise<{ parts: { name: string; bytes: number }[]; total: number }> {
  const parts = await db.any(sql.type(Part)`
    WITH roots AS (
      SELECT c.oid, c.relname FROM pg_class c
      WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY(${sql.array(ROOTS, 'text')})
    ), leaves AS (
      -- A table that is not partitioned has no partition tree: it is its own leaf.
      SELECT r.relname AS root, coalesce(t.relid, r.oid) AS relid
      FROM roots r LEFT JOIN LATERAL pg_partition_tree(r.oid) t ON true
      WHERE coalesce(t.isleaf, true)
    ), pieces AS (
      SELECT root || ' heap' AS name,
             pg_relation_size(relid, 'main') + pg_relation_size(relid, 'fsm') + pg_relation_size(relid, 'vm') AS bytes
      FROM leaves
      UNION ALL
      SELECT root || ' toast', coalesce(pg_total_relation_size(c.reltoastrelid), 0)
      FROM leaves l JOIN pg_class c ON c.oid = l.relid
      UNION ALL
      SELECT l.root || ' index ' || coalesce(pg_partition_root(i.indexrelid), i.indexrelid)::regclass::text, pg_relation_size(i.indexrelid)
      FROM leaves l JOIN pg_index i ON i.indrelid = l.relid
    )
    SELECT name, sum(bytes) AS bytes FROM pieces GROUP BY name HAVING sum(bytes) > 0 ORDER BY min(name)`);
  return { parts: [...parts], total: parts.reduce((sum, part) => sum + part.bytes, 0) };
}

/** One line: bytes per event all-in, then each part per event (parts under 0.05 byte an event are left out of the list, not the total). */
export function storageLine(storage: { parts: { name: string; bytes: number }[]; total: number }, events: number): string {
  const per = (bytes: number) => (bytes / events).toFixed(1);
  const parts = storage.parts
    .filter((part) => part.bytes / events >= 0.05)
    .map((part) => `${part.name} ${per(part.bytes)}`)
    .join(', ');
  return `storage: ${per(storage.total)} bytes/event all-in (${(storage.total / 1e9).toFixed(2)} GB for ${events} events): ${parts}`;
}
