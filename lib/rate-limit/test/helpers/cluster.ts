// The Redis Cluster of the tests: TEST_REDIS_CLUSTER (host:port,... of a running cluster; .ci/run sets it),
// else three masters started here on free loopback ports and stopped afterwards.
import type { Cluster } from 'ioredis';
import { connectCluster, parseNodes, startCluster, type RedisNode } from '../../tools/local-redis.ts';

export interface TestCluster {
  readonly cluster: Cluster;
  readonly nodes: readonly RedisNode[];
  /** Another connection to the same cluster. */
  connect(): Promise<Cluster>;
  close(): Promise<void>;
}

export async function testCluster(): Promise<TestCluster> {
  const given = process.env['TEST_REDIS_CLUSTER'];
  const local = given === undefined || given === '' ? await startCluster() : undefined;
  const nodes = local?.nodes ?? parseNodes(given as string);
  const connections: Cluster[] = [];
  const connect = async () => {
    const connection = await connectCluster(nodes);
    connections.push(connection);
    return connection;
  };
  const cluster = await connect();
  return {
    cluster,
    nodes,
    connect,
    close: async () => {
      await Promise.all(connections.map((c) => c.quit().catch(() => undefined)));
      await local?.stop();
    },
  };
}
