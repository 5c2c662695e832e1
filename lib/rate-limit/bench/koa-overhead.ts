// Requests/s of a bare Koa route vs the same route behind rateLimit(MemoryStore), over loopback with autocannon.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { cpuShareOf, type CpuProfile } from './cpu-share.ts';

const SERVER = fileURLToPath(new URL('./koa-server.ts', import.meta.url));

async function requestsPerSec(mode: 'bare' | 'headers' | 'limited', durationSec: number): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER, mode], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    const port = Number(chunk.toString().trim());
    const url = `http://127.0.0.1:${port}/`;
    await autocannon({ url, connections: 16, duration: 1 }); // warm-up (JIT)
    const result = await autocannon({ url, connections: 16, pipelining: 1, duration: durationSec });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${mode}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return result.requests.average;
  } finally {
    child.stdin.end();
    await once(child, 'exit');
  }
}

/** Alternates bare and limited runs and keeps the best of each, to damp noise from a shared machine. */
export async function koaOverhead(rounds = 4, durationSec = 2): Promise<{ bare: number; headers: number; limited: number }> {
  let bare = 0;
  let headers = 0;
  let limited = 0;
  for (let r = 0; r < rounds; r++) {
    bare = Math.max(bare, await requestsPerSec('bare', durationSec));
    headers = Math.max(headers, await requestsPerSec('headers', durationSec));
    limited = Math.max(limited, await requestsPerSec('limited', durationSec));
  }
  return { bare, headers, limited };
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
      const child = spawn(process.execPath, ['--import', 'tsx', SERVER, 'limited', file], { stdio: ['pipe', 'pipe', 'inherit'] });
      try {
        const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
        const url = `http://127.0.0.1:${Number(chunk.toString().trim())}/`;
        await autocannon({ url, connections: 16, duration: 1 }); // warm-up (JIT)
        child.stdin.write('profile\n');
        await expectLine(child.stdout, 'profiling');
        await autocannon({ url, connections: 16, pipelining: 1, duration: durationSec });
        child.stdin.write('stop\n');
        await expectLine(child.stdout, 'done');
        shares.push(cpuShareOf(JSON.parse(await readFile(file, 'utf8')) as CpuProfile, 'rateLimitMiddleware'));
      } finally {
        child.stdin.end();
        await once(child, 'exit');
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return shares;
}
