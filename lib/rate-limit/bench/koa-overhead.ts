// Requests/s of a bare Koa route vs the same route behind rateLimit(MemoryStore), over loopback with autocannon.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

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
