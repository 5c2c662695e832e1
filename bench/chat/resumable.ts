/**
 * The resumable layer of chat turns (issue 40) alone: a turn's events through its TurnTape, read
 * by the turn's own client, with and without sharing them through `resumable-stream` over Redis
 * (what app/chat/running-turns.ts does for every turn). A private redis-server on a free port, so
 * its command and byte counters are this bench's alone. Measured:
 * - added time to the first event of the turn's own client, and CPU per turn (this process);
 * - Redis commands and bytes per turn (INFO commandstats / stats deltas);
 * - a resume from another "instance" (its own Redis connections): time from the resume call to
 *   its first event, the turn running;
 * - what a finished turn leaves in Redis and for how long (TTL, MEMORY USAGE).
 *
 *   npm run bench:chat:resumable       # BENCH_TURNS (default 2000) turns per cell
 */
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setImmediate as tick } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { uuidv7 } from 'uuidv7';
import { TurnTape, turnStreams, type TurnStreams } from '../../app/chat/turn-streams.ts';
import { percentile } from './timing.ts';

const TURNS = Number(process.env.BENCH_TURNS ?? 2000);
const RESUMES = 100;

/** The events of a typical short text turn (start, 8 deltas, finish), as the service writes them. */
const EVENTS = [
  { type: 'start', messageId: '0196b1c2-0000-7000-8000-000000000000' },
  { type: 'start-step' },
  { type: 'text-start', id: 'txt-0' },
  ...['The scripted ', 'provider ', 'answers ', 'with a ', 'short ', 'paragraph ', 'of ', 'text.'].map((delta) => ({
    type: 'text-delta',
    id: 'txt-0',
    delta,
  })),
  { type: 'text-end', id: 'txt-0' },
  { type: 'finish-step' },
  { type: 'finish', finishReason: 'stop' },
]
  .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
  .concat('data: [DONE]\n\n');

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function connected(url: string): Promise<Redis> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
  redis.on('error', () => {});
  for (let i = 0; i < 200; i++) {
    try {
      await redis.connect();
      return redis;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  throw new Error('redis-server did not start');
}

/** One turn: the events pushed a tick apart (as chunks arrive), read to the end by the turn's client. */
async function turn(streams: TurnStreams | undefined): Promise<{ firstMs: number; id: string }> {
  const id = uuidv7();
  const tape = new TurnTape();
  if (streams)
    void streams.producer
      .createNewResumableStream(id, () => tape.stream())
      .then((shared) => void shared?.cancel())
      .catch(() => {});
  const started = performance.now();
  let firstMs = Number.NaN;
  const reading = (async () => {
    for await (const event of tape.read()) if (Number.isNaN(firstMs) && event) firstMs = performance.now() - started;
  })();
  for (const event of EVENTS) {
    tape.push(event);
    await tick();
  }
  tape.close();
  await reading;
  return { firstMs, id };
}

async function stats(redis: Redis): Promise<{ commands: number; bytesIn: number; bytesOut: number }> {
  const info = await redis.info('all');
  const number = (name: string) => Number(info.match(new RegExp(`^${name}:(\\d+)`, 'm'))?.[1] ?? 0);
  let commands = 0;
  for (const match of info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) if (match[1] !== 'info') commands += Number(match[2]);
  return { commands, bytesIn: number('total_net_input_bytes'), bytesOut: number('total_net_output_bytes') };
}

export async function measureResumable(): Promise<string[]> {
  const port = await freePort();
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const url = `redis://127.0.0.1:${port}`;
  const [producerRedis, resumerRedis, admin] = [await connected(url), await connected(url), await connected(url)];
  const logger = pino({ level: 'silent' });
  const here = turnStreams(producerRedis, logger);
  const there = turnStreams(resumerRedis, logger);
  await new Promise((resolve) => setTimeout(resolve, 100)); // the subscriber connections connect

  const cell = async (streams: TurnStreams | undefined) => {
    const cpu = process.cpuUsage();
    const firsts: number[] = [];
    let last = '';
    for (let i = 0; i < TURNS; i++) {
      const { firstMs, id } = await turn(streams);
      firsts.push(firstMs);
      last = id;
    }
    const used = process.cpuUsage(cpu);
    return { firsts, cpuMs: (used.user + used.system) / 1000 / TURNS, last };
  };
  // Warm-up, then alternating cells.
  await cell(undefined);
  await cell(here);
  const without = await cell(undefined);
  const before = await stats(admin);
  const withLayer = await cell(here);
  // The last turn's end (SET DONE, UNSUBSCRIBE) is asynchronous: let it land before reading the counters.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const after = await stats(admin);
  const perTurn = (value: number) => (value / TURNS).toFixed(1);

  // Resume from the other "instance" while the turn runs (3 events sent, the rest after the first resumed event).
  const resumeMs: number[] = [];
  const WARM = 10;
  for (let i = 0; i < RESUMES + WARM; i++) {
    const id = uuidv7();
    const tape = new TurnTape();
    const shared = await here.producer.createNewResumableStream(id, () => tape.stream());
    void shared?.cancel();
    for (const event of EVENTS.slice(0, 3)) tape.push(event);
    const started = performance.now();
    const stream = await there.resumer.resumeExistingStream(id);
    const reader = stream!.getReader();
    await reader.read();
    if (i >= WARM) resumeMs.push(performance.now() - started);
    for (const event of EVENTS.slice(3)) tape.push(event);
    tape.close();
    while (!(await reader.read()).done);
  }
  const sentinel = `chat-turn:rs:sentinel:${withLayer.last}`;
  const ttl = await admin.ttl(sentinel);
  const memory = Number(await admin.call('MEMORY', 'USAGE', sentinel));
  const value = await admin.get(sentinel);

  await Promise.all([here.close(), there.close()]);
  for (const redis of [producerRedis, resumerRedis, admin]) redis.disconnect();
  server.kill('SIGKILL');

  const f = (values: number[], p: number) => percentile(values, p).toFixed(3);
  return [
    `The resumable layer alone (bench/chat/resumable.ts): ${TURNS} turns of ${EVENTS.length} events per cell, a private redis-server.`,
    '',
    '| cell | first event p50 / p99 ms | CPU per turn ms |',
    '|---|---|---:|',
    `| tape only (no sharing) | ${f(without.firsts, 50)} / ${f(without.firsts, 99)} | ${without.cpuMs.toFixed(3)} |`,
    `| tape + resumable-stream over Redis | ${f(withLayer.firsts, 50)} / ${f(withLayer.firsts, 99)} | ${withLayer.cpuMs.toFixed(3)} |`,
    `| added by the layer | ${(percentile(withLayer.firsts, 50) - percentile(without.firsts, 50)).toFixed(3)} / ${(percentile(withLayer.firsts, 99) - percentile(without.firsts, 99)).toFixed(3)} | ${(withLayer.cpuMs - without.cpuMs).toFixed(3)} |`,
    '',
    `Redis per turn (nobody resuming): ${perTurn(after.commands - before.commands)} commands, ${perTurn(after.bytesIn - before.bytesIn)} bytes in, ${perTurn(after.bytesOut - before.bytesOut)} bytes out.`,
    `A resume from another instance, turn running: first event after p50 ${f(resumeMs, 50)} ms, p99 ${f(resumeMs, 99)} ms (${RESUMES} resumes).`,
    `A finished turn leaves one key (${sentinel.replace(withLayer.last, '<turnId>')} = ${JSON.stringify(value)}, ${memory} bytes by MEMORY USAGE) with TTL ${ttl} s.`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${(await measureResumable()).join('\n')}\n`);
  process.exit(0);
}
