import type { ExecutionContext } from 'ava';
import pg from 'pg';
import type { TestContext } from './app.ts';

/**
 * A connection of the test's own to its file's database, to hold locks and terminate the app's
 * backends: how tests lose PostgreSQL mid-request without touching the shared server
 * (docs/architecture.md, "A lost database connection", was ADR 0065). Closed when the test ends.
 */
export async function backendControl(t: ExecutionContext<TestContext>) {
  const client = new pg.Client({ connectionString: t.context.t.db.url });
  await client.connect();
  t.teardown(() => client.end());
  const database = t.context.t.db.name;
  return {
    query: (text: string, values: unknown[] = []) => client.query(text, values),
    /**
     * Waits until a backend of this database other than `exclude` is blocked on a lock. Only the app's pool and this
     * connection use the database. (`query` is not matched: while a statement waits in parse analysis under the
     * extended protocol, pg_stat_activity may still show the previous one.)
     */
    async waitingBackend(exclude: number[] = []): Promise<number> {
      for (let i = 0; i < 500; i++) {
        // Activity is read once per transaction, and this connection holds its locks in one: take a new reading.
        await client.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await client.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity
           WHERE datname = $1 AND wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND NOT (pid = ANY($2::int[]))`,
          [database, exclude],
        );
        if (rows[0]) return rows[0].pid;
        // Waiting on PostgreSQL, an external peer: its activity view is polled, at most 500 times.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const { rows: all } = await client.query(
        'SELECT pid, datname, state, wait_event_type, left(query, 120) AS q FROM pg_stat_activity WHERE datname = $1',
        [database],
      );
      throw new Error(`no backend waited on a lock: ${JSON.stringify(all)}`);
    },
    /** pg_terminate_backend, only ever for a backend of this file's own database. */
    async terminate(pid: number) {
      const { rows } = await client.query(
        'SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE pid = $1 AND datname = $2',
        [pid, database],
      );
      if (!rows[0]?.done) throw new Error(`backend ${pid} was not terminated`);
    },
  };
}
