// Requests/s of Koa apps with and without the limiter, over loopback.
// Design (each point measured on a 2-vCPU VM, see BENCHMARKS.md):
// - one server process serves every variant (the route variants are routes of one app), so they share heap,
//   JIT state and core;
// - the server runs on one CPU and this process (the load generator) on another when taskset exists, so the
//   client's own work never takes CPU from the server;
// - the two routes of a comparison take turns in 50 ms slices on the same open connections, in ABBA order
//   (this VM's speed moves by 2-3x within a second, far more than the cost measured, so only slices that close
//   together share the machine's state); a pair's cost is 1 - variant/baseline, and the table gives the median
//   and interquartile range of the pairs and the cost over all slices, with an A/A pair of identical routes as
//   the noise floor.
import { execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { SwitchingLoad } from './http-load.ts';
import type { Target } from './koa-server.ts';

const SERVER = fileURLToPath(new URL('./koa-server.ts', import.meta.url));

/** Cost of `variant` against `baseline`, both served by the same process. */
export interface Comparison {
  readonly label: string;
  readonly baseline: Target;
  readonly variant: Target;
}

export interface ComparisonResult extends Comparison {
  /** Median requests/s over the measured rounds. */
  readonly baselineRps: number;
  readonly variantRps: number;
  /** Quartiles of the per-pair cost `1 - variant/baseline` (fractions). */
  readonly cost: { readonly q25: number; readonly median: number; readonly q75: number };
  /** `1 - variant responses / baseline responses` over all slices (fraction). */
  readonly pooledCost: number;
}

export interface KoaOverhead {
  /** True when the server and the load generator each had a CPU of their own. */
  readonly pinned: boolean;
  /** CPU time per wall time during the measured rounds (1 = one core fully busy). */
  readonly serverBusy: number;
  readonly loadBusy: number;
  /** Share of this VM's CPU time the hypervisor gave to others during the rounds (Linux `steal`), if known. */
  readonly stolen: number | undefined;
  readonly rows: readonly ComparisonResult[];
}

/** Linear-interpolation quantile of a non-empty sample. */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return (sorted[low] as number) + ((sorted[high] as number) - (sorted[low] as number)) * (position - low);
}

/** The `steal` and total ticks of all CPUs from /proc/stat (Linux), or undefined elsewhere. */
function cpuTicks(): { steal: number; total: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    // user nice system idle iowait irq softirq steal ...; guest time is already counted in user.
    return { steal: fields[7] ?? 0, total: fields.slice(0, 8).reduce((sum, ticks) => sum + ticks, 0) };
  } catch {
    return undefined;
  }
}

/** This process's CPU affinity mask (hex, as taskset prints it), where taskset exists; Linux only. */
function affinityMask(): string | undefined {
  if (os.platform() !== 'linux') return undefined;
  try {
    // Machines with over 32 CPUs print the mask in comma-separated groups of 8 hex digits.
    return /:\s*([0-9a-f,]+)\s*$/i
      .exec(execFileSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' }))?.[1]
      ?.replaceAll(',', '');
  } catch {
    return undefined;
  }
}

/** The CPUs a hex affinity mask allows, lowest first. */
function cpusOf(mask: string): number[] {
  const cpus: number[] = [];
  [...mask].reverse().forEach((digit, nibble) => {
    for (let bit = 0; bit < 4; bit++) if ((parseInt(digit, 16) >> bit) & 1) cpus.push(nibble * 4 + bit);
  });
  return cpus;
}

const setAffinity = (args: readonly string[]): void => {
  execFileSync('taskset', ['-a', '-p', ...args, String(process.pid)], { stdio: 'ignore' });
};

interface Server {
  readonly urls: Record<string, string>;
  readonly child: ChildProcessByStdio<Writable, Readable, null>;
  cpuMicros(): Promise<number>;
}

async function startServer(targets: readonly Target[], core: number | undefined): Promise<Server> {
  const node = [process.execPath, SERVER, ...targets];
  const [command, ...args] = core === undefined ? node : ['taskset', '-c', String(core), ...node];
  const child = spawn(command as string, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  return {
    urls: JSON.parse(chunk.toString()) as Record<string, string>,
    child,
    async cpuMicros() {
      child.stdin.write('cpu\n');
      const [answer] = (await once(child.stdout, 'data')) as [Buffer];
      return Number(answer.toString().trim());
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Responses/s of `url` while it alone is loaded for `ms`. */
async function slice(load: SwitchingLoad, url: string, ms: number): Promise<number> {
  load.target = url;
  const before = load.completed(url);
  const started = performance.now();
  await sleep(ms);
  return ((load.completed(url) - before) / (performance.now() - started)) * 1000;
}

async function compare(urls: Record<string, string>, comparison: Comparison, pairs: number, sliceMs: number): Promise<ComparisonResult> {
  const base = urls[comparison.baseline] as string;
  const variant = urls[comparison.variant] as string;
  // Fresh connections per comparison: sockets idle for a minute would be closed by the server (408).
  const load = await SwitchingLoad.open([base, variant]);
  try {
    return await paired(load, comparison, base, variant, pairs, sliceMs);
  } finally {
    load.close();
  }
}

async function paired(
  load: SwitchingLoad,
  comparison: Comparison,
  base: string,
  variant: string,
  pairs: number,
  sliceMs: number,
): Promise<ComparisonResult> {
  await slice(load, base, 1_500); // warm-up: JIT and steady state, as a deployed instance
  await slice(load, variant, 1_500);
  const baseRps: number[] = [];
  const variantRps: number[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    if (pair % 2 === 0) {
      baseRps.push(await slice(load, base, sliceMs));
      variantRps.push(await slice(load, variant, sliceMs));
    } else {
      variantRps.push(await slice(load, variant, sliceMs));
      baseRps.push(await slice(load, base, sliceMs));
    }
  }
  const costs = baseRps.map((b, i) => 1 - (variantRps[i] as number) / b);
  const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
  return {
    ...comparison,
    baselineRps: quantile(baseRps, 0.5),
    variantRps: quantile(variantRps, 0.5),
    cost: { q25: quantile(costs, 0.25), median: quantile(costs, 0.5), q75: quantile(costs, 0.75) },
    pooledCost: 1 - sum(variantRps) / sum(baseRps),
  };
}

/** Runs each comparison in paired rounds against one server process holding every app. */
export async function koaOverhead(comparisons: readonly Comparison[], pairs = 300, sliceMs = 50): Promise<KoaOverhead> {
  // Two CPUs this process may use: the load generator keeps the first, the server gets the second.
  const mask = affinityMask();
  const [generatorCore, serverCore] = mask === undefined ? [] : cpusOf(mask);
  const pinned = generatorCore !== undefined && serverCore !== undefined;
  const targets = [...new Set(comparisons.flatMap((c) => [c.baseline, c.variant]))];
  const server = await startServer(targets, pinned ? serverCore : undefined);
  if (pinned) setAffinity(['-c', String(generatorCore)]);
  try {
    const rows: ComparisonResult[] = [];
    const serverCpu0 = await server.cpuMicros();
    const generatorCpu0 = process.cpuUsage();
    const ticks0 = cpuTicks();
    const wall0 = performance.now();
    for (const comparison of comparisons) rows.push(await compare(server.urls, comparison, pairs, sliceMs));
    const wallMicros = (performance.now() - wall0) * 1_000;
    const generatorCpu = process.cpuUsage(generatorCpu0);
    const ticks = cpuTicks();
    return {
      pinned,
      serverBusy: ((await server.cpuMicros()) - serverCpu0) / wallMicros,
      loadBusy: (generatorCpu.user + generatorCpu.system) / wallMicros,
      stolen: ticks0 === undefined || ticks === undefined ? undefined : (ticks.steal - ticks0.steal) / (ticks.total - ticks0.total || 1),
      rows,
    };
  } finally {
    if (pinned && mask !== undefined) setAffinity([mask]);
    server.child.stdin.end();
    if (server.child.exitCode === null) await once(server.child, 'exit');
  }
}
