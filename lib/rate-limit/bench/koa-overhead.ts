// Requests/s of Koa apps with and without the limiter, over loopback with autocannon.
// Design (each point measured on a 2-vCPU VM, see BENCHMARKS.md):
// - one server process serves every variant (the route variants are routes of one app), so they share heap,
//   JIT state and core;
// - the server runs on one CPU and this process (autocannon) on another when taskset exists, so the
//   client's own work (it parses responses in JavaScript) never takes CPU from the server;
// - paired rounds in alternating order (ABBA); a pair's cost is 1 - variant/baseline, and the table gives the
//   median and interquartile range of the pairs, with an A/A pair of identical apps as the noise floor.
import { execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
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
}

export interface KoaOverhead {
  /** True when the server and the load generator each had a CPU of their own. */
  readonly pinned: boolean;
  /** CPU time per wall time during the measured rounds (1 = one core fully busy). */
  readonly serverBusy: number;
  readonly loadBusy: number;
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
  const node = [process.execPath, '--import', 'tsx', SERVER, ...targets];
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

/** Requests/s of `GET url` over 16 keep-alive connections for `seconds`; throws on any error or non-2xx. */
async function load(url: string, seconds: number): Promise<number> {
  const result = await autocannon({ url, connections: 16, pipelining: 1, duration: seconds });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.total / result.duration;
}

async function compare(server: Server, comparison: Comparison, pairs: number, seconds: number): Promise<ComparisonResult> {
  const base = server.urls[comparison.baseline] as string;
  const variant = server.urls[comparison.variant] as string;
  await load(base, 2); // warm-up: JIT and steady state, as a deployed instance
  await load(variant, 2);
  const baseRps: number[] = [];
  const variantRps: number[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    if (pair % 2 === 0) {
      baseRps.push(await load(base, seconds));
      variantRps.push(await load(variant, seconds));
    } else {
      variantRps.push(await load(variant, seconds));
      baseRps.push(await load(base, seconds));
    }
  }
  const costs = baseRps.map((b, i) => 1 - (variantRps[i] as number) / b);
  return {
    ...comparison,
    baselineRps: quantile(baseRps, 0.5),
    variantRps: quantile(variantRps, 0.5),
    cost: { q25: quantile(costs, 0.25), median: quantile(costs, 0.5), q75: quantile(costs, 0.75) },
  };
}

/** Runs each comparison in paired rounds against one server process holding every app. */
export async function koaOverhead(comparisons: readonly Comparison[], pairs = 12, seconds = 1): Promise<KoaOverhead> {
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
    const wall0 = performance.now();
    for (const comparison of comparisons) rows.push(await compare(server, comparison, pairs, seconds));
    const wallMicros = (performance.now() - wall0) * 1_000;
    const generatorCpu = process.cpuUsage(generatorCpu0);
    return {
      pinned,
      serverBusy: ((await server.cpuMicros()) - serverCpu0) / wallMicros,
      loadBusy: (generatorCpu.user + generatorCpu.system) / wallMicros,
      rows,
    };
  } finally {
    if (pinned && mask !== undefined) setAffinity([mask]);
    server.child.stdin.end();
    if (server.child.exitCode === null) await once(server.child, 'exit');
  }
}
