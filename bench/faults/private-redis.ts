import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';

export type PrivateRedis = {
  url: string;
  /** A connection of the bench's own, for DEBUG SLEEP, CLIENT KILL and KEYS. */
  control: Redis;
  stop(): Promise<void>;
};

/**
 * Starts a redis-server of the bench's own on `port`, in memory only, with DEBUG allowed from
 * loopback (Redis 7 disables it by default). Faults are injected into this server only, never
 * into a shared one.
 */
export async function startPrivateRedis(port: number): Promise<PrivateRedis> {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--enable-debug-command', 'local'],
    { stdio: 'ignore' },
  );
  let running = true;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running = false;
      resolve();
    }),
  );
  const stop = async () => {
    if (running) child.kill('SIGTERM');
    await exited;
  };
  const url = `redis://127.0.0.1:${port}`;
  // The server takes a moment to listen; ioredis retries every 50 ms until it answers.
  const control = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: () => (running ? 50 : null) });
  control.on('error', () => {});
  try {
    await Promise.race([
      control.ping(),
      exited.then(() => Promise.reject(new Error(`redis-server exited (is port ${port} taken?)`))),
      new Promise((_, reject) => setTimeout(() => reject(new Error('redis-server did not answer within 5 s')), 5_000)),
    ]);
  } catch (error) {
    control.disconnect();
    await stop();
    throw error;
  }
  return {
    url,
    control,
    async stop() {
      control.disconnect();
      await stop();
    },
  };
}
