// Requests/s of a bare Koa route vs the same route behind rateLimit(MemoryStore), over loopback with autocannon,
// and the middleware's share of the server's CPU from a V8 profile.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { cpuShareOf, type CpuProfile } from './cpu-share.ts';

const SERVER = fileURLToPath(new URL('./koa-server.ts', import.meta.url));

export type KoaMode = 'bare' | 'headers' | 'limited';
const MODES: readonly KoaMode[] = ['bare', 'headers', 'limited'];

/** Requests/s of one mode over its rounds. */
export interface ModeResult {
  readonly best: number;
  readonly median: number;
  readonly rounds: readonly number[];
}

interface Server {
  readonly mode: KoaMode;
  readonly url: string;
  readonly child: ChildProcessByStdio<Writable, Readable, null>;
}

async function startServer(mode: KoaMode, profilePath?: string): Promise<Server> {
  const args = ['--import', 'tsx', SERVER, mode, ...(profilePath === undefined ? [] : [profilePath])];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  return { mode, child, url: `http://127.0.0.1:${Number(chunk.toString().trim())}/` };
}

async function stopServer(server: Server): Promise<void> {
  server.child.stdin.end();
  if (server.child.exitCode === null) await once(server.child, 'exit');
}

async function load(server: Server, durationSec: number): Promise<number> {
  const result = await autocannon({ url: server.url, connections: 16, pipelining: 1, duration: durationSec });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${server.mode}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/**
 * Requests/s of the three servers, each started once and warmed up (JIT, steady state, as a deployed
 * instance), then loaded in interleaved rounds whose order alternates, so that a slow spell of the
 * shared machine falls on every mode alike. Best and median per mode.
 */
export async function koaOverhead(rounds = 6, durationSec = 2): Promise<Record<KoaMode, ModeResult>> {
  const servers = await Promise.all(MODES.map((mode) => startServer(mode)));
  try {
    for (const server of servers) await load(server, 2);
    const measured = new Map<KoaMode, number[]>(MODES.map((mode) => [mode, []]));
    for (let r = 0; r < rounds; r++) {
      for (const server of r % 2 === 0 ? servers : [...servers].reverse()) measured.get(server.mode)?.push(await load(server, durationSec));
    }
    const result = (mode: KoaMode): ModeResult => {
      const values = measured.get(mode) ?? [];
      return { best: Math.max(...values), median: median(values), rounds: values };
    };
    return { bare: result('bare'), headers: result('headers'), limited: result('limited') };
  } finally {
    await Promise.all(servers.map(stopServer));
  }
}

/** Waits for the child to print `line` on stdout. */
async function expectLine(stdout: NodeJS.ReadableStream, line: string): Promise<void> {
  for (;;) {
    const [chunk] = (await once(stdout, 'data')) as [Buffer];
    if (chunk.toString().split('\n').includes(line)) return;
  }
}

/**
 * Share of the limited server's busy CPU time spent inside `rateLimitMiddleware` (key, check, both headers),
 * excluding the downstream route, from a V8 CPU profile taken under the same autocannon load. One value per round.
 */
export async function middlewareCpuShare(rounds = 3, durationSec = 4): Promise<number[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rl-bench-'));
  const shares: number[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      const file = path.join(dir, `limited-${r}.cpuprofile`);
      const server = await startServer('limited', file);
      try {
        await load(server, 1); // warm-up (JIT)
        server.child.stdin.write('profile\n');
        await expectLine(server.child.stdout, 'profiling');
        await load(server, durationSec);
        server.child.stdin.write('stop\n');
        await expectLine(server.child.stdout, 'done');
        shares.push(cpuShareOf(JSON.parse(await readFile(file, 'utf8')) as CpuProfile, 'rateLimitMiddleware'));
      } finally {
        await stopServer(server);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return shares;
}
