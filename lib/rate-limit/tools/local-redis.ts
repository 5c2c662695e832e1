// Private redis-server processes for the tests and the benchmark: a lone server, or a three-master
// Redis Cluster (redis-server --cluster-enabled yes, then redis-cli --cluster create), on loopback.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';

const run = promisify(execFile);

export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

/** Servers this process started; `stop()` shuts them down and removes their directory. */
export interface LocalRedis {
  readonly nodes: readonly RedisNode[];
  stop(): Promise<void>;
}

/** Parses `host:port,host:port,...` (the `TEST_REDIS_CLUSTER` format). */
export function parseNodes(list: string): RedisNode[] {
  return list.split(',').map((item) => {
    const [host, port] = item.trim().split(':');
    if (host === undefined || port === undefined || !/^\d+$/.test(port))
      throw new TypeError(`bad Redis node ${JSON.stringify(item)}: expected host:port`);
    return { host, port: Number(port) };
  });
}

/** A port the OS says is free; for a cluster node its bus port (port + 10 000) must be free too. */
async function freePort(withBus: boolean): Promise<number> {
  for (;;) {
    const port = await listenOnce(0);
    if (!withBus) return port;
    if (
      port + 10_000 < 65_536 &&
      (await listenOnce(port + 10_000).then(
        () => true,
        () => false,
      ))
    )
      return port;
  }
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const chosen = typeof address === 'object' && address !== null ? address.port : port;
      server.close(() => resolve(chosen));
    });
  });
}

async function startServer(dir: string, port: number, extra: string[]): Promise<void> {
  await run('redis-server', [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'yes',
    '--dir',
    dir,
    '--logfile',
    join(dir, `redis-${port}.log`),
    '--pidfile',
    join(dir, `redis-${port}.pid`),
    ...extra,
  ]);
  await until(async () => (await ask({ host: '127.0.0.1', port }, (r) => r.ping())) === 'PONG', `redis-server on ${port}`);
}

/** Starts one redis-server on a free loopback port (`port` to choose it). */
export async function startRedis(port?: number): Promise<LocalRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'rate-limit-redis-'));
  const chosen = port ?? (await freePort(false));
  await startServer(dir, chosen, []);
  return { nodes: [{ host: '127.0.0.1', port: chosen }], stop: () => stopAll(dir, [chosen]) };
}

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /** Replicas per master (each a failover candidate). Default: 0. */
  replicas?: number;
  /** `cluster-node-timeout`: how long a master may be unreachable before its replica takes over. Redis's default: 15 000. */
  nodeTimeoutMs?: number;
}

/**
 * Starts three empty masters (and `replicas` replicas of each) and joins them into a cluster covering all
 * 16 384 slots; with replicas, waits until every replica is in sync with its master.
 */
export async function startCluster(ports?: readonly number[], options: ClusterOptions = {}): Promise<LocalRedis> {
  const replicas = options.replicas ?? 0;
  const dir = await mkdtemp(join(tmpdir(), 'rate-limit-cluster-'));
  const chosen = ports ?? (await Promise.all(Array.from({ length: 3 * (1 + replicas) }, () => freePort(true))));
  const timeout = options.nodeTimeoutMs === undefined ? [] : ['--cluster-node-timeout', String(options.nodeTimeoutMs)];
  try {
    for (const port of chosen) {
      await startServer(dir, port, ['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`), ...timeout]);
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...chosen.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ]);
    const nodes = chosen.map((port) => ({ host: '127.0.0.1', port }));
    for (const node of nodes) {
      await until(async () => /cluster_state:ok/.test(await ask(node, (r) => r.cluster('INFO'))), `cluster state ok on ${node.port}`);
      await until(
        async () =>
          !/role:slave/.test(await ask(node, (r) => r.info('replication'))) ||
          /master_link_status:up/.test(await ask(node, (r) => r.info('replication'))),
        `replica on ${node.port} in sync`,
      );
    }
    return { nodes, stop: () => stopAll(dir, chosen) };
  } catch (error) {
    await stopAll(dir, chosen);
    throw error;
  }
}

/** An ioredis `Cluster` over `nodes`, ready (slots known). */
export async function connectCluster(nodes: readonly RedisNode[]): Promise<Cluster> {
  const cluster = new Cluster([...nodes], { redisOptions: { maxRetriesPerRequest: 1 } });
  await new Promise<void>((resolve, reject) => {
    cluster.once('ready', () => resolve());
    cluster.once('error', reject);
  });
  return cluster;
}

async function stopAll(dir: string, ports: readonly number[]): Promise<void> {
  // Our own servers only (started above, in our own directory): SHUTDOWN NOSAVE by port.
  await Promise.all(ports.map((port) => ask({ host: '127.0.0.1', port }, (r) => r.shutdown('NOSAVE')).catch(() => undefined)));
  await rm(dir, { recursive: true, force: true });
}

async function ask<T>(node: RedisNode, question: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ ...node, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await question(redis);
  } finally {
    redis.disconnect();
  }
}

async function until(test: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await test().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
