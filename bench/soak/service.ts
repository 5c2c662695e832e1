import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ProbeStats } from './probe.ts';

export type SoakService = {
  baseUrl: string;
  pid: number;
  /** The service's own RSS, heap and event-loop delay (since the previous call), via the probe. */
  stats(): Promise<ProbeStats>;
  /** Closes the IPC channel (the probe then sends the service SIGTERM) and waits for the exit. */
  stop(): Promise<number | null>;
};

/** A port free on loopback now (the service is told it in PORT; server.ts logs but does not report it). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts `app/server.ts` (the production entry point, unchanged) as a child process with the
 * bench probe preloaded, and waits until `GET /api/ready` answers 200. Its log goes to this
 * process's stderr.
 */
export async function startService(env: Record<string, string>, log: (line: string) => void): Promise<SoakService> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    ['--conditions=agents-source', '--import', './bench/soak/probe.ts', 'app/server.ts'],
    { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 2, 2, 'ipc'] },
  );
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exitCode = code;
      resolve(code);
    }),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exitCode !== undefined) throw new Error(`the service exited with ${exitCode} before it was ready`);
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error('the service was not ready within 120 s');
    }
    const ready = await fetch(`${baseUrl}/api/ready`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  log(`service pid ${child.pid} ready on ${baseUrl}`);

  // The probe answers in order, so the oldest waiting call takes each answer.
  const waiting: ((stats: ProbeStats) => void)[] = [];
  child.on('message', (message: ProbeStats) => {
    if (message.type === 'stats') waiting.shift()?.(message);
  });
  return {
    baseUrl,
    pid: child.pid!,
    stats: () =>
      new Promise<ProbeStats>((resolve, reject) => {
        const answer = (stats: ProbeStats) => {
          clearTimeout(timer);
          resolve(stats);
        };
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(answer), 1);
          reject(new Error('the probe did not answer within 10 s'));
        }, 10_000);
        waiting.push(answer);
        child.send({ type: 'stats' });
      }),
    async stop() {
      if (exitCode !== undefined) return exitCode;
      if (child.connected) child.disconnect();
      else child.kill('SIGTERM');
      return exited;
    },
  };
}
