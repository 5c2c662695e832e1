import type { Redis } from 'ioredis';
import type pg from 'pg';

/** A fault as injected: `[startMs, endMs]` on the bench clock (equal for an instant fault). */
export type Fault = { name: string; startMs: number; endMs: number };

export type FaultTargets = {
  /** The bench's private Redis (never a shared one). */
  redis: Redis;
  /** A connection to the bench's own database, used only to terminate that database's backends. */
  pg: pg.Client;
  database: string;
  now: () => number;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `DEBUG SLEEP`: the whole Redis server stops answering for `seconds`. */
export async function pauseRedis(targets: FaultTargets, seconds: number): Promise<Fault> {
  const startMs = targets.now();
  await targets.redis.call('DEBUG', 'SLEEP', String(seconds));
  return { name: `redis DEBUG SLEEP ${seconds}`, startMs, endMs: targets.now() };
}

/** `CLIENT KILL TYPE normal`: every client connection but the bench's own is closed. */
export async function killRedisClients(targets: FaultTargets): Promise<Fault> {
  const startMs = targets.now();
  const killed = await targets.redis.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
  return { name: `redis CLIENT KILL (${String(killed)} connections)`, startMs, endMs: targets.now() };
}

/** pg_terminate_backend for every backend of the bench's own database except this connection. */
export async function terminateBackends(targets: FaultTargets): Promise<number> {
  const { rows } = await targets.pg.query<{ n: number }>(
    `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n
     FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
    [targets.database],
  );
  return rows[0]?.n ?? 0;
}

/** Terminates the database's backends every `everyMs` for `forMs`. */
export async function terminateRepeatedly(targets: FaultTargets, forMs: number, everyMs: number): Promise<Fault> {
  const startMs = targets.now();
  let total = 0;
  while (targets.now() - startMs < forMs) {
    total += await terminateBackends(targets);
    await sleep(everyMs);
  }
  return { name: `pg_terminate_backend every ${everyMs} ms for ${forMs} ms (${total} backends)`, startMs, endMs: targets.now() };
}

export async function terminateOnce(targets: FaultTargets): Promise<Fault> {
  const startMs = targets.now();
  const n = await terminateBackends(targets);
  return { name: `pg_terminate_backend (${n} backends)`, startMs, endMs: targets.now() };
}

/**
 * The schedule, in seconds from the start of the load: Redis paused, its connections killed,
 * a pause with a kill behind it, PostgreSQL backends terminated once and repeatedly, and
 * finally Redis and PostgreSQL together. Every fault is over by 25 s.
 */
export async function runSchedule(targets: FaultTargets, origin: number, faults: Fault[]): Promise<void> {
  const at = async (second: number) => {
    const wait = origin + second * 1000 - targets.now();
    if (wait > 0) await sleep(wait);
  };
  await at(4);
  faults.push(await pauseRedis(targets, 2));
  await at(9);
  faults.push(await killRedisClients(targets));
  await at(12);
  const pause = pauseRedis(targets, 1);
  await sleep(300);
  const kill = killRedisClients(targets);
  faults.push(await pause, await kill);
  await at(16);
  faults.push(await terminateOnce(targets));
  await at(19);
  faults.push(await terminateRepeatedly(targets, 1_000, 100));
  await at(23);
  const [both, db] = await Promise.all([pauseRedis(targets, 1), terminateRepeatedly(targets, 1_000, 250)]);
  faults.push(both, db);
}
