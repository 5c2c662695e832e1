import { createPool, createTypeParserPreset, SchemaValidationError, type DatabasePool, type Interceptor } from 'slonik';

import { isConnectionLoss } from './connection-loss.ts';
import { pgDriverFactory } from './driver.ts';

export type { DatabasePool } from 'slonik';

/**
 * Validates every row against the zod schema of its `sql.type(...)` query.
 * Slonik only carries the parser; checking it is an interceptor's job (see the slonik README, "Result parser interceptor").
 */
const resultParser: Interceptor = {
  name: 'result-parser',
  transformRow: (context, query, row) => {
    const parser = context.resultParser;
    if (!parser) return row;
    const result = parser.safeParse(row);
    if (!result.success) throw new SchemaValidationError(query, row, result.error.issues);
    return result.data as typeof row;
  },
};

/** timestamptz as the ISO-8601 UTC string with milliseconds that the API prints (Date#toJSON). */
const timestamptzAsIso = {
  name: 'timestamptz',
  parse: (value: string) => new Date(value).toISOString(),
};

export type PoolOptions = {
  /** 1 for the embedded PGlite server, which is a single session. */
  maximumPoolSize?: number;
  /** Milliseconds to wait for a connection before failing. Default 5000. */
  connectionTimeoutMs?: number;
};

/**
 * Resets a connection on its way back to the pool, as Slonik does by default (`DISCARD ALL`).
 * Slonik runs this after the caller's query has succeeded and hands a failure to the caller, so a
 * backend terminated at that moment turned a committed write into an error. A lost connection is
 * therefore not reported here: the result stands, and the dead connection fails its next query,
 * which Slonik answers by destroying it (a read is then retried, ADR 0065).
 */
async function resetConnection({ query }: { query: (sql: string) => Promise<void> }): Promise<void> {
  try {
    await query('DISCARD ALL');
  } catch (error) {
    if (!isConnectionLoss(error)) throw error;
  }
}

export function createDatabasePool(url: string, options: PoolOptions = {}): Promise<DatabasePool> {
  return createPool(url, {
    driverFactory: pgDriverFactory(),
    resetConnection,
    maximumPoolSize: options.maximumPoolSize ?? 10,
    connectionTimeout: options.connectionTimeoutMs ?? 5_000,
    idleTimeout: 10_000,
    statementTimeout: 60_000,
    interceptors: [resultParser],
    typeParsers: [...createTypeParserPreset().filter((parser) => parser.name !== 'timestamptz'), timestamptzAsIso],
  });
}
