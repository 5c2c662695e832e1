// Redis time per check from INFO commandstats, on a Redis (or cluster nodes) the benchmark owns.
import type { Redis } from 'ioredis';
import { measure } from './measure.ts';

export interface RedisCost {
  /**
   * Microseconds Redis spent executing per check: commandstats `usec` of the client's calls. A script's own
   * usec already includes the commands it runs, which are listed again under their names, so when scripts
   * ran, only the script calls are summed (none of the peers mixes scripts with plain commands).
   */
  readonly usPerCheck: number;
  /** Redis process CPU (INFO cpu: user + sys, all threads) per check, µs: commands plus network and parsing. */
  readonly cpuUsPerCheck: number;
  /** This (client) process's CPU per check, µs: the limiter, ioredis and the load loop. */
  readonly clientCpuUsPerCheck: number;
  /** Commands Redis counted per check: the client's calls plus the commands scripts ran. */
  readonly callsPerCheck: number;
  /** Top-level client calls per check (EVALSHA, EVAL, or a plain command), not counting script-internal ones. */
  readonly clientCallsPerCheck: number;
}

const SCRIPT_CALLS = new Set(['evalsha', 'eval', 'evalsha_ro', 'eval_ro', 'fcall', 'fcall_ro']);
const IGNORED = new Set(['info', 'config', 'ping', 'cluster', 'command', 'client', 'hello', 'select']);

/** Parses `cmdstat_<name>:calls=N,usec=N,...` lines. */
function commandStats(info: string): Map<string, { calls: number; usec: number }> {
  const stats = new Map<string, { calls: number; usec: number }>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    stats.set(match[1] as string, { calls: Number(match[2]), usec: Number(match[3]) });
  }
  return stats;
}

/** `used_cpu_user` + `used_cpu_sys` of INFO cpu, seconds (the whole server process). */
function processCpuSeconds(info: string): number {
  const user = /^used_cpu_user:([\d.]+)/m.exec(info)?.[1];
  const sys = /^used_cpu_sys:([\d.]+)/m.exec(info)?.[1];
  return Number(user ?? 0) + Number(sys ?? 0);
}

/**
 * Resets the stats of `nodes` (servers this benchmark started: CONFIG RESETSTAT is only ever sent there),
 * runs `ops` checks at concurrency 64, and divides what the servers counted by the checks made.
 */
export async function redisCost(nodes: readonly Redis[], op: (i: number) => Promise<unknown>, ops = 50_000): Promise<RedisCost> {
  await Promise.all(nodes.map((node) => node.config('RESETSTAT')));
  const cpuBefore = await Promise.all(nodes.map(async (node) => processCpuSeconds(await node.info('cpu'))));
  const clientBefore = process.cpuUsage();
  const run = await measure(op, { concurrency: 64, maxOps: ops, maxMs: 30_000, warmupOps: 0 });
  const client = process.cpuUsage(clientBefore);
  const cpuAfter = await Promise.all(nodes.map(async (node) => processCpuSeconds(await node.info('cpu'))));
  const cpuSeconds = cpuAfter.reduce((sum, after, i) => sum + after - (cpuBefore[i] as number), 0);
  let usec = 0;
  let calls = 0;
  let scriptUsec = 0;
  let scriptCalls = 0;
  for (const node of nodes) {
    for (const [name, stat] of commandStats(await node.info('commandstats'))) {
      if (IGNORED.has(name)) continue;
      usec += stat.usec;
      calls += stat.calls;
      if (SCRIPT_CALLS.has(name)) {
        scriptUsec += stat.usec;
        scriptCalls += stat.calls;
      }
    }
  }
  const clientCalls = scriptCalls > 0 ? scriptCalls : calls;
  const clientUsec = scriptCalls > 0 ? scriptUsec : usec;
  return {
    usPerCheck: clientUsec / run.ops,
    cpuUsPerCheck: (cpuSeconds * 1e6) / run.ops,
    clientCpuUsPerCheck: (client.user + client.system) / run.ops,
    callsPerCheck: calls / run.ops,
    clientCallsPerCheck: clientCalls / run.ops,
  };
}
