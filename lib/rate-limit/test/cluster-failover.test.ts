// A master of a private Redis Cluster (three masters, one replica each, started here on free ports: never a
// shared cluster) is killed under load. The limiter answers from memory meanwhile, returns to the cluster once
// a replica has taken over, and Redis ends up holding every check it acknowledged and none it was not sent.
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { Cluster, Redis } from 'ioredis';
import { RedisStore } from '../src/redis-store.ts';
import { ResilientStore } from '../src/resilient-store.ts';
import type { Store } from '../src/store.ts';
import { startCluster, type LocalRedis } from '../tools/local-redis.ts';
import { captureLogger } from './helpers/capture-logger.ts';
import { sleep } from './helpers/redis.ts';

const WINDOW_MS = 600_000;
const LIMIT = 1_000_000; // never reached: every check is allowed and recorded, so counts can be compared

/** Per key: checks the cluster answered, and checks whose cluster call failed (answered from memory). */
class Tally {
  readonly acknowledged = new Map<string, number>();
  readonly failed = new Map<string, number>();
  add(map: Map<string, number>, key: string): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }
}

/** `store`, with each call's outcome tallied (a late success after ResilientStore's timeout counts as acknowledged: Redis has it). */
function tallied(store: RedisStore, tally: Tally): Store {
  return {
    hit: (key, windowMs, limit, nowMs, cost) =>
      store.hit(key, windowMs, limit, nowMs, cost).then(
        (result) => {
          tally.add(tally.acknowledged, key);
          return result;
        },
        (error: unknown) => {
          tally.add(tally.failed, key);
          throw error;
        },
      ),
  };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    // Waiting on the Redis Cluster, an external peer (its failover): polled, bounded by timeoutMs.
    await sleep(20);
  }
}

let servers: LocalRedis | undefined;
test.after.always(async () => {
  await servers?.stop();
});

test('a master killed mid-load: checks are answered from memory, then by the cluster after failover, and Redis holds every acknowledged check', async (t) => {
  t.timeout(90_000);
  servers = await startCluster(undefined, { replicas: 1, nodeTimeoutMs: 1_000 });
  const cluster = new Cluster([...servers.nodes], { redisOptions: { maxRetriesPerRequest: 1 } });
  cluster.on('error', () => {});
  t.teardown(() => cluster.disconnect());
  await new Promise((resolve) => cluster.once('ready', resolve));

  const prefix = `failover:${randomUUID()}:`;
  const redisStore = new RedisStore(cluster, { prefix, timeoutMs: 200 });
  const tally = new Tally();
  const logger = captureLogger();
  const store = new ResilientStore(tallied(redisStore, tally), { timeoutMs: 250, retryIntervalMs: 100, logger });
  const keys = Array.from({ length: 60 }, (_, i) => `key-${i}`);

  let running = true;
  let answered = 0;
  let rejected = 0;
  const worker = async (w: number) => {
    for (let i = w; running; i += 16) {
      await store.hit(keys[i % keys.length] as string, WINDOW_MS, LIMIT, Date.now()).then(
        () => answered++,
        () => rejected++,
      );
      if (i % 64 === w) await sleep(1); // leave the event loop to ioredis's reconnects and slot refreshes
    }
  };
  const load = Promise.all(Array.from({ length: 16 }, (_, w) => worker(w)));

  await until(() => answered > 2_000, 'load on the healthy cluster', 20_000);
  // The master that owns key-0's slot: its process is ours (started above), killed without warning.
  const victimKey = redisStore.redisKey('key-0');
  const victim = new Redis({ ...(await ownerOf(cluster, victimKey)), lazyConnect: true, maxRetriesPerRequest: 0 });
  victim.on('error', () => {});
  await victim.connect();
  const pid = Number(/process_id:(\d+)/.exec(await victim.info('server'))?.[1]);
  victim.disconnect();
  process.kill(pid, 'SIGKILL');
  const killedAt = Date.now();

  await until(() => store.isDown, 'the outage to be noticed', 10_000);
  const answeredWhenDown = answered;
  const noticedMs = Date.now() - killedAt;
  await until(() => !store.isDown && logger.lines.some((l) => l.level === 'info'), 'failover and recovery', 30_000);
  const acknowledgedAtRecovery = tally.acknowledged.get('key-0') ?? 0;
  await until(() => (tally.acknowledged.get('key-0') ?? 0) > acknowledgedAtRecovery + 20, 'key-0 counted by its new master', 30_000);
  await until(() => !store.isDown, 'the store up', 10_000);
  const recoveredMs = Date.now() - killedAt;
  running = false;
  await load;

  t.is(rejected, 0, 'no check was refused: memory answered during the outage');
  t.true(answered > answeredWhenDown, 'checks were answered during and after the outage');
  // Until the replica takes over, checks of the two healthy masters' keys succeed and those of the dead one's
  // fail, so the store may go down and up more than once; it ends up, and every outage was logged as one pair.
  const levels = logger.lines.map((l) => l.level);
  t.deepEqual(
    levels,
    levels.map((_, i) => (i % 2 === 0 ? 'warn' : 'info')),
  );
  t.is(levels.at(-1), 'info');
  t.log(
    `outage noticed after ${noticedMs} ms, cluster answering again ${recoveredMs} ms after the kill; ${levels.length / 2} outage(s) logged`,
  );
  // Every key's log, read from the cluster after failover: it holds every check the cluster acknowledged, and
  // beyond those at most the checks whose call failed in flight (they may have run before the master died).
  let storedTotal = 0;
  for (const key of keys) {
    const stored = await cluster.llen(redisStore.redisKey(key));
    const acknowledged = tally.acknowledged.get(key) ?? 0;
    const failed = tally.failed.get(key) ?? 0;
    storedTotal += stored;
    t.true(
      stored >= acknowledged && stored <= acknowledged + failed,
      `${key}: ${stored} stored, ${acknowledged} acknowledged, ${failed} failed`,
    );
  }
  const sum = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
  t.log(
    `${answered} checks answered; Redis holds ${storedTotal}: ${sum(tally.acknowledged)} acknowledged + ${storedTotal - sum(tally.acknowledged)} of the ${sum(tally.failed)} that failed in flight`,
  );
});

async function ownerOf(cluster: Cluster, key: string): Promise<{ host: string; port: number }> {
  const slot = Number(await cluster.cluster('KEYSLOT', key));
  const [host, port] = (cluster.slots[slot]?.[0] ?? '').split(':');
  return { host: host as string, port: Number(port) };
}
