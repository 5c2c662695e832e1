/**
 * The floors of the first-chunk target: what a text turn at c=1 costs through proxies that do
 * none of the service's work (bench/chat/floor-child.ts), measured in rounds interleaved with the
 * provider alone and the service itself so that drift of the machine falls on all of them alike.
 */
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { percentile, runConcurrent, timeStream, type Sample } from './timing.ts';

const ROUNDS = 4;

export type FloorRow = { path: string; firstP50: number; addedP50: number };

export async function measureFloors(
  gatewayUrl: string,
  turns: number,
  reference: { providerAlone: () => Promise<Sample>; service: () => Promise<Sample> },
): Promise<FloorRow[]> {
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
  const cells: [string, () => Promise<Sample>][] = [
    ['the provider alone', reference.providerAlone],
    ['a bare proxy (node:http, fetch, the body piped back)', through('/bare', (data) => /"content":"[^"]/.test(data))],
    [
      'the AI SDK alone (streamText, UI message stream; no token, database or tools)',
      through('/sdk', (data) => data.includes('"type":"text-delta"')),
    ],
    ['the service (POST /api/ai/agents/:agentId/chat)', reference.service],
  ];
  for (const [, turn] of cells) await runConcurrent(20, 1, turn);
  const firsts = new Map(cells.map(([path]) => [path, [] as number[]]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [path, turn] of cells)
      firsts.get(path)!.push(...(await runConcurrent(Math.ceil(turns / ROUNDS), 1, turn)).map((s) => s.firstMs));
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send('stop');
  await exited;
  const alone = percentile(firsts.get(cells[0]![0])!, 50);
  return cells.map(([path]) => {
    const firstP50 = percentile(firsts.get(path)!, 50);
    return { path, firstP50, addedP50: firstP50 - alone };
  });
}
