// The Redis servers of the benchmark: its own redis-server and three-master cluster (so CONFIG RESETSTAT and
// INFO commandstats measure this run only and never touch a shared server), on ports from the environment
// (BENCH_REDIS_PORT, BENCH_REDIS_CLUSTER_PORTS=p1,p2,p3) or free ones.
import { Redis, type Cluster } from 'ioredis';
import { connectCluster, startCluster, startRedis, type LocalRedis } from '../tools/local-redis.ts';

export interface BenchServers {
  readonly version: string;
  /** A new connection to the lone server. */
  connect(): Redis;
  /** A new connection to the cluster. */
  connectCluster(): Promise<Cluster>;
  /** One admin connection per server (lone server first, then the cluster masters), for commandstats. */
  readonly admin: { readonly single: Redis; readonly cluster: readonly Redis[] };
  stop(): Promise<void>;
}

const portsFrom = (value: string | undefined) => (value === undefined || value === '' ? undefined : value.split(',').map(Number));

export async function startBenchServers(): Promise<BenchServers> {
  const started: LocalRedis[] = [];
  const clients: Array<Redis | Cluster> = [];
  const track = <T extends Redis | Cluster>(client: T): T => {
    clients.push(client);
    return client;
  };
  try {
    const single = await startRedis(portsFrom(process.env['BENCH_REDIS_PORT'])?.[0]);
    started.push(single);
    const cluster = await startCluster(portsFrom(process.env['BENCH_REDIS_CLUSTER_PORTS']));
    started.push(cluster);
    const singleNode = single.nodes[0] as { host: string; port: number };
    const admin = { single: track(new Redis(singleNode)), cluster: cluster.nodes.map((node) => track(new Redis(node))) };
    const version = /redis_version:(\S+)/.exec(await admin.single.info('server'))?.[1] ?? '?';
    return {
      version,
      admin,
      connect: () => track(new Redis(singleNode)),
      connectCluster: async () => track(await connectCluster(cluster.nodes)),
      stop: async () => {
        for (const client of clients) client.disconnect();
        for (const servers of started) await servers.stop();
      },
    };
  } catch (error) {
    for (const client of clients) client.disconnect();
    for (const servers of started) await servers.stop();
    throw error;
  }
}
