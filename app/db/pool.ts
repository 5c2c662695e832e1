import { createPool, createTypeParserPreset, SchemaValidationError, type DatabasePool, type Interceptor } from 'slonik';

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
  /** Milliseconds a statement may run. Default 60000; 'off' for maintenance work (a benchmark's VACUUM of 100M rows). */
  statementTimeoutMs?: number | 'off';
};

/**
 * Connections go back to the pool as they are, without Slonik's default `DISCARD ALL`: that reset
 * is an awaited round trip after every statement (it doubled the round trips of every request),
 * and it has nothing to undo here because no statement leaves state on a session (settings only
 * through SET LOCAL or set_config(..., true), transaction-scoped advisory locks, no LISTEN, no
 * temporary tables; the lint rule "no session state on pooled connections" keeps it so). Slonik
 * ends every transaction it opens and destroys a connection whose query failed.
 */
const keepConnection = async (): Promise<void> => {};

/**
 * The URL with `-c jit=off` added to its startup `options`. The service sends short statements
 * (60 s timeout), and PostgreSQL's JIT compiles a plan whose estimated cost passes
 * `jit_above_cost` anew for every execution: over the 100M-row analytics benchmark that was
 * 1.0-1.7 s of a model-efficiency query that runs in 0.14-0.5 s without it (bench/analytics).
 * An operator's own `options` in DATABASE_URL are kept, and a `jit` there wins.
 */
export function withoutJit(url: string): string {
  const parsed = new URL(url);
  const options = parsed.searchParams.get('options');
  if (options?.includes('jit=')) return url;
  parsed.searchParams.set('options', options ? `${options} -c jit=off` : '-c jit=off');
  return parsed.toString();
}

export function createDatabasePool(url: string, options: PoolOptions = {}): Promise<DatabasePool> {
  return createPool(withoutJit(url), {
    driverFactory: pgDriverFactory(),
    resetConnection: keepConnection,
    maximumPoolSize: options.maximumPoolSize ?? 10,
    connectionTimeout: options.connectionTimeoutMs ?? 5_000,
    idleTimeout: 10_000,
    statementTimeout: options.statementTimeoutMs === 'off' ? 'DISABLE_TIMEOUT' : (options.statementTimeoutMs ?? 60_000),
    interceptors: [resultParser],
    typeParsers: [...createTypeParserPreset().filter((parser) => parser.name !== 'timestamptz'), timestamptzAsIso],
  });
}
