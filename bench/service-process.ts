/**
 * The service of a bench in a child process (bench/service-child.ts), as it runs deployed: its
 * clients are elsewhere, so the CPU and memory read here are the service's own.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export type ServiceProcess = { child: ChildProcess; base: string; port: number };

/** Forks the service and waits for its port. `BENCH_CPU_PROF=1` writes a V8 CPU profile into `.data-bench/`. */
export async function startService(env: {
  databaseUrl: string;
  nodeEnv?: 'production';
  gatewayUrl?: string;
  titleModel?: string;
}): Promise<ServiceProcess> {
  const execArgv = ['--conditions=agents-source', '--expose-gc'];
  if (process.env.BENCH_CPU_PROF) execArgv.push('--cpu-prof', '--cpu-prof-dir=.data-bench');
  const child = fork(new URL('./service-child.ts', import.meta.url), [], {
    execArgv,
    env: {
      ...process.env,
      BENCH_DATABASE_URL: env.databaseUrl,
      ...(env.nodeEnv ? { BENCH_NODE_ENV: env.nodeEnv } : {}),
      ...(env.gatewayUrl ? { BENCH_GATEWAY_URL: env.gatewayUrl } : {}),
      ...(env.titleModel ? { BENCH_TITLE_MODEL: env.titleModel } : {}),
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}`)));
  });
  return { child, port, base: `http://127.0.0.1:${port}` };
}

/** Asks the service to end and waits for its exit (and its CPU profile, if one was asked for). */
export async function stopService(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send('stop');
  await exited;
}

/**
 * The process's CPU time so far (utime + stime from /proc/<pid>/stat), in ms; with `thread`, that
 * thread's alone (/proc/<pid>/task/<tid>/stat; the main thread's id is the pid).
 */
export function cpuMsOf(pid: number, thread?: number): number {
  const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  // After the command name: state is field 3, utime field 14, stime field 15 (clock ticks, 100 per second).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** The process's resident set (VmRSS), in MB. */
export function rssMbOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)!;
  return Number(line[1]) / 1024;
}

/** Asks the service to collect garbage, then reads its RSS. */
export async function rssAfterGc(child: ChildProcess): Promise<number> {
  await new Promise<void>((resolve) => {
    child.once('message', () => resolve());
    child.send('gc');
  });
  return rssMbOf(child.pid!);
}

/** Samples the service's CPU (V8 profiler, 1 ms) while `during` runs; the profile's path in `.data-bench/`. */
export async function profileService<T>(child: ChildProcess, during: () => Promise<T>): Promise<{ result: T; profilePath: string }> {
  const reply = (message: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      child.once('message', (answer) => resolve(answer as Record<string, unknown>));
      child.send(message);
    });
  await reply('profile-start');
  const result = await during();
  const { profile } = await reply('profile-stop');
  return { result, profilePath: profile as string };
}

/** The statements the service sent to PostgreSQL since the last call, by their first 60 characters (bench/service-child.ts). */
export function statementsOf(child: ChildProcess): Promise<Record<string, number>> {
  return new Promise((resolve) => {
    child.once('message', (answer) => resolve((answer as { queries: Record<string, number> }).queries));
    child.send('queries');
  });
}
