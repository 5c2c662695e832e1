/**
 * The floors of the first-chunk target: what a text turn at c=1 costs through proxies that do
 * none of the service's work (bench/chat/floor-child.ts), measured in rounds interleaved with the
 * provider alone and the service itself so that drift of the machine falls on all of them alike;
 * then the floors of the whole-turn target: the same paths at c=64, one cell each.
 */
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { cpuMsOf } from '../service-process.ts';
import { percentile, runConcurrent, timeStream, type Sample } from './timing.ts';

const ROUNDS = 4;

/** `cpuPerTurnMs`: the CPU of the path's own process per turn (none for the provider, which runs in the bench). */
export type FloorRow = { path: string; firstP50: number; addedP50: number; cpuPerTurnMs?: number };

/**
 * The floors of the whole-turn target: `turns` text turns at c=64 through each path, the service's
 * cell run last; `addedP50` is the whole turn's p50 over the provider alone's, as the main cell.
 */
export type WholeTurnFloorRow = { path: string; wholeP50: number; addedP50: number; cpuPerTurnMs?: number };

export async function measureFloors(
  gatewayUrl: string,
  turns: number,
  reference: { providerAlone: () => Promise<Sample>; service: () => Promise<Sample>; servicePid: number },
  wholeTurnsAt64: number,
): Promise<{ firstChunk: FloorRow[]; wholeTurnAt64: WholeTurnFloorRow[] }> {
  const child = fork(new URL('./floor-child.ts', import.meta.url), [], {
    execArgv: ['--conditions=agents-source'],
    env: { ...process.env, BENCH_GATEWAY_URL: gatewayUrl },
  });
  const port = await new Promise<number>((resolve) => child.once('message', (message) => resolve((message as { port: number }).port)));
  const through = (path: string, isText: (data: string) => boolean) => async (): Promise<Sample> => {
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello' }),
    });
    return timeStream(response, started, isText);
  };
  const cells: [string, () => Promise<Sample>, number | undefined][] = [
    ['the provider alone', reference.providerAlone, undefined],
    ['a bare proxy (node:http, fetch, the body piped back)', through('/bare', (data) => /"content":"[^"]/.test(data)), child.pid],
    [
      'the AI SDK alone (streamText, UI message stream; no token, database or tools)',
      through('/sdk', (data) => data.includes('"type":"text-delta"')),
      child.pid,
    ],
    ['the service (POST /api/ai/agents/:agentId/chat)', reference.service, reference.servicePid],
  ];
  for (const [, turn] of cells) await runConcurrent(20, 1, turn);
  const firsts = new Map(cells.map(([path]) => [path, [] as number[]]));
  const cpuMs = new Map(cells.map(([path]) => [path, 0]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [path, turn, pid] of cells) {
      const before = pid === undefined ? 0 : cpuMsOf(pid);
      firsts.get(path)!.push(...(await runConcurrent(Math.ceil(turns / ROUNDS), 1, turn)).map((s) => s.firstMs));
      cpuMs.set(path, cpuMs.get(path)! + (pid === undefined ? 0 : cpuMsOf(pid) - before));
    }
  }
  const wholes = new Map<string, { wholeP50: number; cpuPerTurnMs?: number }>();
  for (const [path, turn, pid] of cells) {
    const before = pid === undefined ? 0 : cpuMsOf(pid);
    const samples = await runConcurrent(wholeTurnsAt64, 64, turn);
    const wholeP50 = percentile(
      samples.map((sample) => sample.totalMs),
      50,
    );
    wholes.set(path, pid === undefined ? { wholeP50 } : { wholeP50, cpuPerTurnMs: (cpuMsOf(pid) - before) / samples.length });
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send('stop');
  await exited;
  const alone = percentile(firsts.get(cells[0]![0])!, 50);
  const firstChunk = cells.map(([path, , pid]) => {
    const firstP50 = percentile(firsts.get(path)!, 50);
    const cpuPerTurnMs = pid === undefined ? undefined : cpuMs.get(path)! / firsts.get(path)!.length;
    return { path, firstP50, addedP50: firstP50 - alone, ...(cpuPerTurnMs === undefined ? {} : { cpuPerTurnMs }) };
  });
  const wholeAlone = wholes.get(cells[0]![0])!.wholeP50;
  const wholeTurnAt64 = cells.map(([path]) => {
    const whole = wholes.get(path)!;
    return { path, ...whole, addedP50: whole.wholeP50 - wholeAlone };
  });
  return { firstChunk, wholeTurnAt64 };
}
