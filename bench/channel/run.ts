/**
 * The web channel's service cost (docs/channel.md): the service in a process of its own
 * (bench/service-process.ts), the clients and a scripted OpenAI-compatible provider here, so the
 * CPU (utime + stime from /proc) and RSS read are the service's alone.
 *
 * - Service CPU per session, `POST /api/public/sessions` from an allowed origin: an anonymous new
 *   visitor, a returning one (its `visitorToken`), a verified user (HMAC of its id). Target ≤ 1 ms each.
 * - Service CPU per text turn, the public route (`POST /api/public/chat`, an end user's session)
 *   against the staff route (`POST /api/ai/agents/:agentId/chat`) in the same run, in interleaved
 *   blocks. Target: public ≤ staff + 1 ms.
 * - `OPEN` end-user streams held open at once, the provider sending one character a second: no
 *   error, and the service's RSS growth (after a forced GC, before and with the streams open) < 300 MB.
 *
 *   npm run bench:channel [-- --sessions 1000 --turns 200 --open 1000]
 *   npm run bench:channel -- --open-route staff --drip-ms 100   # the staff route's streams instead; a faster provider
 */
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { userHashOf } from '../../app/channel/secrets.ts';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { accessToken } from '../../test/analytics/support.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { startOpenAiPeer, type Reply } from '../../test/helpers/openai-peer.ts';
import { runConcurrent, timeStream, type Sample } from '../chat/timing.ts';
import { cpuMsOf, rssAfterGc, rssMbOf, startService, stopService } from '../service-process.ts';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '1000' },
    turns: { type: 'string', default: '200' },
    open: { type: 'string', default: '1000' },
    // The staff route's streams instead, to compare (the figures and targets are the public route's).
    'open-route': { type: 'string', default: 'public' },
    // How slowly the provider streams the held-open answers: one character every this many ms.
    'drip-ms': { type: 'string', default: '1000' },
  },
});
const SESSIONS = Number(values.sessions);
const TURNS = Number(values.turns);
const OPEN = Number(values.open);
const OPEN_ROUTE = values['open-route'] === 'staff' ? 'staff' : 'public';
const CONCURRENCY = 8;
const SHOP = 'https://shop.example.com';
const log = (line: string) => process.stderr.write(`${line}\n`);

const db = await createTestDatabase();
await seedDemo(db.pool);
// Text turns answer at once; once `slow`, each answer is one character a second (about a minute).
let slow = false;
const provider = await startOpenAiPeer((): Reply =>
  slow
    ? { kind: 'drip', text: 'This answer arrives one character a second, as a slow model streams.', everyMs: Number(values['drip-ms']) }
    : { kind: 'text', text: 'The scripted provider answers with a short paragraph of text.', pieces: 8 },
);
const { child, base } = await startService({ databaseUrl: db.url, gatewayUrl: provider.url });
const pid = child.pid!;
const agent = AGENTS.support.id;
const staff = { authorization: `Bearer ${accessToken(USERS.owner.id, ORGANIZATIONS.demoAgency.id)}`, 'content-type': 'application/json' };

async function call(path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown }) {
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: response.status, body: (await response.json().catch(() => undefined)) as Record<string, unknown> };
}

const channel = await call(`/api/ai/agents/${agent}/channel`, {
  method: 'PUT',
  headers: staff,
  body: { enabled: true, allowedOrigins: [SHOP], endUserMessagesPerDay: 10_000 },
});
const publishableKey = channel.body.publishableKey as string;
const secret = (await call(`/api/ai/agents/${agent}/channel/secret`, { headers: staff })).body.secret as string;

type Session = { sessionToken: string; visitorToken?: string };
const session = async (body: Record<string, unknown>): Promise<Session> => {
  const response = await call('/api/public/sessions', { headers: { origin: SHOP }, body: { publishableKey, ...body } });
  if (response.status !== 201) throw new Error(`a session answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body as Session;
};

/** Runs `count` calls of `one` at CONCURRENCY; the service's CPU per call, ms. */
async function cpuPer<T>(count: number, one: (i: number) => Promise<T>): Promise<{ results: T[]; cpuMs: number }> {
  const results: T[] = [];
  let next = 0;
  const before = cpuMsOf(pid);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await one(i);
      }
    }),
  );
  return { results, cpuMs: (cpuMsOf(pid) - before) / count };
}

// Warm-up: JIT and pools, 200 sessions of each kind (so that the first kind measured pays no more of it than the others).
const WARM = 200;
const warm = await cpuPer(WARM, () => session({}));
await cpuPer(WARM, (i) => session({ visitorToken: warm.results[i]!.visitorToken }));
await cpuPer(WARM, (i) => session({ user: { id: `warm-${i}`, hash: userHashOf(secret, `warm-${i}`) } }));

const anonymous = await cpuPer(SESSIONS, () => session({}));
log(`anonymous new: ${anonymous.cpuMs.toFixed(3)} ms`);
const returning = await cpuPer(SESSIONS, (i) => session({ visitorToken: anonymous.results[i]!.visitorToken }));
log(`returning visitor: ${returning.cpuMs.toFixed(3)} ms`);
const verified = await cpuPer(SESSIONS, (i) => session({ user: { id: `customer-${i}`, hash: userHashOf(secret, `customer-${i}`) } }));
log(`verified: ${verified.cpuMs.toFixed(3)} ms`);

let conversation = 0;
const turn = (path: string, headers: Record<string, string>) => async (): Promise<Sample> => {
  const started = performance.now();
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ id: `turn-${conversation++}`, messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: 'hello' }] }] }),
  });
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return timeStream(response, started, (data) => data.includes('"type":"text-delta"'));
};
const endUserTurn = (i: number) =>
  turn('/api/public/chat', { authorization: `Bearer ${verified.results[i % SESSIONS]!.sessionToken}`, origin: SHOP })();
const staffTurn = turn(`/api/ai/agents/${agent}/chat`, staff);
await runConcurrent(40, CONCURRENCY, staffTurn);
await runConcurrent(40, CONCURRENCY, endUserTurn);
// Interleaved blocks, so that the shared machine's load falls on both routes alike.
const BLOCKS = 4;
let [staffCpu, publicCpu] = [0, 0];
for (let block = 0; block < BLOCKS; block++) {
  staffCpu += (await cpuPer(TURNS / BLOCKS, staffTurn)).cpuMs / BLOCKS;
  publicCpu += (await cpuPer(TURNS / BLOCKS, (i) => endUserTurn(block * TURNS + i))).cpuMs / BLOCKS;
}
log(`text turn: staff ${staffCpu.toFixed(2)} ms, public ${publicCpu.toFixed(2)} ms`);

// OPEN end users' streams at once, each the first turn of an anonymous session's conversation.
slow = true;
const rssBefore = await rssAfterGc(child);
const controllers = Array.from({ length: OPEN }, () => new AbortController());
let errors = 0;
const firstTexts: number[] = [];
const openStarted = performance.now();
const readers = await Promise.all(
  controllers.map(async (controller, i) => {
    try {
      const endUserHeaders = { origin: SHOP, authorization: `Bearer ${anonymous.results[i % SESSIONS]!.sessionToken}` };
      const response = await fetch(OPEN_ROUTE === 'staff' ? `${base}/api/ai/agents/${agent}/chat` : `${base}/api/public/chat`, {
        method: 'POST',
        signal: controller.signal,
        headers: OPEN_ROUTE === 'staff' ? staff : { 'content-type': 'application/json', ...endUserHeaders },
        body: JSON.stringify({ id: `open-${i}`, messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: 'hello' }] }] }),
      });
      if (response.status !== 200) throw new Error(`answered ${response.status}`);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let seen = '';
      while (!seen.includes('text-delta')) {
        const { done, value } = await reader.read();
        if (done) throw new Error('the stream ended before its first text');
        seen += decoder.decode(value, { stream: true });
      }
      firstTexts.push((performance.now() - openStarted) / 1000);
      return reader;
    } catch (error) {
      if (errors++ === 0) log(`first error: ${String(error)}`);
      return undefined;
    }
  }),
);
const openSeconds = (performance.now() - openStarted) / 1000;
firstTexts.sort((a, b) => a - b);
const firstAt = (p: number) => firstTexts[Math.min(firstTexts.length - 1, Math.floor(p * firstTexts.length))] ?? Number.NaN;
log(`first texts at p10 ${firstAt(0.1).toFixed(1)} s, p50 ${firstAt(0.5).toFixed(1)} s, p90 ${firstAt(0.9).toFixed(1)} s`);
const rssOpenRaw = rssMbOf(pid);
const rssOpen = await rssAfterGc(child);
log(
  `${OPEN} open: ${openSeconds.toFixed(1)} s to all first texts; RSS ${rssBefore.toFixed(0)} -> ${rssOpen.toFixed(0)} MB; errors ${errors}`,
);
for (const controller of controllers) controller.abort();
await Promise.allSettled(readers.map((reader) => reader?.cancel()));
// A disconnect is not a stop: the stop route ends the turns.
await runConcurrent(OPEN, 32, async (i) => {
  const token = anonymous.results[i % SESSIONS]!.sessionToken;
  const [path, headers] =
    OPEN_ROUTE === 'staff'
      ? [`/api/ai/agents/${agent}/chat/open-${i}/stop`, staff]
      : [`/api/public/chat/open-${i}/stop`, { authorization: `Bearer ${token}`, origin: SHOP }];
  await fetch(`${base}${path}`, { method: 'POST', headers });
  return { firstMs: 0, totalMs: 0 };
});

const growth = rssOpen - rssBefore;
const verdict = (ok: boolean) => (ok ? 'pass' : 'miss');
const ms = (value: number, digits = 2) => `${value.toFixed(digits)} ms`;
const out = [
  `Web channel bench, ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ` +
    `${(totalmem() / 2 ** 30).toFixed(1)} GB; the service in its own process (CPU and RSS are its own), clients at c=${CONCURRENCY}.`,
  '',
  '| measure | n | service CPU per call | target | ratio to target | result |',
  '|---|---:|---:|---|---:|---|',
  ...(
    [
      ['session, anonymous new', anonymous.cpuMs],
      ['session, returning visitor', returning.cpuMs],
      ['session, verified (HMAC)', verified.cpuMs],
    ] as const
  ).map(([name, cpu]) => `| ${name} | ${SESSIONS} | ${ms(cpu, 3)} | ≤ 1 ms | ${cpu.toFixed(2)} | ${verdict(cpu <= 1)} |`),
  `| text turn, staff route | ${TURNS} | ${ms(staffCpu)} | (the reference) | | |`,
  `| text turn, public route | ${TURNS} | ${ms(publicCpu)} | ≤ staff + 1 ms = ${ms(staffCpu + 1)} | ${(publicCpu / (staffCpu + 1)).toFixed(2)} | ${verdict(publicCpu <= staffCpu + 1)} |`,
  '',
  '| open end-user streams | errors | service RSS after GC, before → open | growth | target | result |',
  '|---:|---:|---|---:|---|---|',
  `| ${OPEN} | ${errors} | ${rssBefore.toFixed(0)} MB → ${rssOpen.toFixed(0)} MB (${rssOpenRaw.toFixed(0)} MB before the GC) | ` +
    `${growth.toFixed(1)} MB | < 300 MB, no error | ${verdict(growth < 300 && errors === 0)} |`,
  '',
  `All ${OPEN} streams had their first text ${openSeconds.toFixed(1)} s after the first was sent (the provider sends a character a second).`,
];
process.stdout.write(`${out.join('\n')}\n`);
await stopService(child);
await provider.close();
await db.drop();
process.exit(0);
