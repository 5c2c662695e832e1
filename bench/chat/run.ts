/**
 * Chat stream benchmark (issue 24): the service between an AI SDK client and a scripted
 * OpenAI-compatible provider on loopback, against the provider alone.
 *
 * For c = 1 and c = 64 concurrent chats, with and without one MCP tool call (an always_allow tool
 * on a real SDK MCP server), it measures the time to the first text chunk and the whole turn
 * (to `data: [DONE]`) through `POST /api/ai/agents/:agentId/chat`, and the same for the provider
 * alone (the tool turn alone is its two provider calls back to back, without the MCP server).
 * Added latency = service - provider alone (p50, p99). CPU per turn: this process's CPU during
 * the service runs minus the provider-alone runs (client and provider live in this process too),
 * per turn. Then 200 streams are held open at once and the RSS growth is read.
 *
 *   npm run bench:chat                     # BENCH_TURNS (default 200) turns per cell
 */
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { sql } from 'slonik';
import { z } from 'zod';
import { createApp } from '../../app/app.ts';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { accessToken } from '../../test/analytics/support.ts';
import { testConfig } from '../../test/helpers/app.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { startMcpToolPeer } from '../../test/helpers/mcp-tool-peer.ts';
import { startOpenAiPeer, type Reply } from '../../test/helpers/openai-peer.ts';

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const OPEN_STREAMS = 200;
const log = (line: string) => process.stderr.write(`${line}\n`);

type Sample = { firstMs: number; totalMs: number };

/** Reads an SSE body until `[DONE]` (or its end), noting when the first text arrives. */
async function timeStream(response: Response, started: number, isText: (data: string) => boolean): Promise<Sample> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let firstMs = Number.NaN;
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = event.startsWith('data: ') ? event.slice(6) : '';
      if (Number.isNaN(firstMs) && isText(data)) firstMs = performance.now() - started;
    }
  }
  return { firstMs, totalMs: performance.now() - started };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function runConcurrent(turns: number, concurrency: number, one: (i: number) => Promise<Sample>): Promise<Sample[]> {
  const samples: Sample[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < turns) samples.push(await one(next++));
    }),
  );
  return samples;
}

async function main() {
  const db = await createTestDatabase();
  await seedDemo(db.pool);
  const provider = await startOpenAiPeer((request): Reply => {
    const hasToolResult = request.messages.some((m) => m.role === 'tool');
    const wantsTool = JSON.stringify(request.messages).includes('use the tool');
    if (wantsTool && !hasToolResult) return { kind: 'tool-call', toolName: 'search_docs', input: { query: 'limits' } };
    return { kind: 'text', text: 'The scripted provider answers with a short paragraph of text.', pieces: 8 };
  });
  const mcp = await startMcpToolPeer();
  const config = testConfig({ nodeEnv: 'development', logLevel: 'silent' });
  const app = createApp({
    db: db.pool,
    config: { ...config, ai: { ...config.ai, gatewayUrl: provider.url, gatewayApiKey: 'sk-bench', providerTimeoutMs: 120_000 } },
    logger: pino({ level: 'silent' }),
    rateLimitFor: () => undefined,
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = AGENTS.support.id;
  const token = accessToken(USERS.owner.id, ORGANIZATIONS.demoAgency.id);
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  // The agent gets one always_allow MCP tool.
  const added = await fetch(`${base}/api/ai/agents/${agent}/mcp-servers`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ name: 'Bench MCP', transportType: 'http', url: mcp.url }),
  });
  const serverId = ((await added.json()) as { id: string }).id;
  await fetch(`${base}/api/ai/agents/${agent}/tools`, {
    method: 'PUT',
    headers: auth,
    body: JSON.stringify({ tools: [{ toolName: 'search_docs', permissionStatus: 'always_allow', providerKey: `mcp:${serverId}` }] }),
  });

  let chatCounter = 0;
  const serviceTurn = (text: string) => async (): Promise<Sample> => {
    const started = performance.now();
    const response = await fetch(`${base}/api/ai/agents/${agent}/chat`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ id: `bench-${chatCounter++}`, messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text }] }] }),
    });
    if (response.status !== 200) throw new Error(`chat answered ${response.status}`);
    return timeStream(response, started, (data) => data.includes('"type":"text-delta"'));
  };
  const providerCall = async (messages: unknown[], started: number): Promise<Sample> => {
    const response = await fetch(`${provider.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-bench', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } }),
    });
    return timeStream(response, started, (data) => data.includes('"content":"') && !data.includes('"content":""'));
  };
  const providerTurn = (withTool: boolean) => async (): Promise<Sample> => {
    const started = performance.now();
    if (!withTool) return providerCall([{ role: 'user', content: 'hello' }], started);
    await providerCall([{ role: 'user', content: 'use the tool' }], started);
    return providerCall(
      [
        { role: 'user', content: 'use the tool' },
        { role: 'tool', content: 'x', tool_call_id: 'call_1' },
      ],
      started,
    );
  };

  // Warm-up (JIT, pools, the MCP tools cache).
  await runConcurrent(20, 4, serviceTurn('use the tool please'));
  await runConcurrent(20, 4, providerTurn(true));

  const rows: string[] = [];
  let serviceCpu = 0;
  let providerCpu = 0;
  let serviceTurns = 0;
  for (const withTool of [false, true]) {
    for (const concurrency of [1, 64]) {
      const turns = concurrency === 1 ? Math.min(TURNS, 100) : TURNS;
      let cpu = process.cpuUsage();
      const alone = await runConcurrent(turns, concurrency, providerTurn(withTool));
      cpu = process.cpuUsage(cpu);
      providerCpu += cpu.user + cpu.system;
      cpu = process.cpuUsage();
      const through = await runConcurrent(turns, concurrency, serviceTurn(withTool ? 'use the tool please' : 'hello'));
      cpu = process.cpuUsage(cpu);
      serviceCpu += cpu.user + cpu.system;
      serviceTurns += turns;
      const f = (values: number[], p: number) => percentile(values, p).toFixed(1);
      const first = (s: Sample[]) => s.map((x) => x.firstMs);
      const total = (s: Sample[]) => s.map((x) => x.totalMs);
      rows.push(
        `| ${withTool ? 'one MCP tool call' : 'text only'} | ${concurrency} | ${turns} | ${f(first(alone), 50)} / ${f(first(through), 50)} | ` +
          `${(percentile(first(through), 50) - percentile(first(alone), 50)).toFixed(1)} / ${(percentile(first(through), 99) - percentile(first(alone), 99)).toFixed(1)} | ` +
          `${f(total(alone), 50)} / ${f(total(through), 50)} | ${(percentile(total(through), 50) - percentile(total(alone), 50)).toFixed(1)} / ${(percentile(total(through), 99) - percentile(total(alone), 99)).toFixed(1)} |`,
      );
      log(rows.at(-1)!);
    }
  }
  const cpuPerTurnMs = (serviceCpu - providerCpu) / serviceTurns / 1000;

  // 200 streams open at once: the provider sends one chunk and waits until released.
  const held: (() => void)[] = [];
  const holding = await startOpenAiPeer(() => ({ kind: 'hang-after-first-chunk' }));
  const holdApp = createApp({
    db: db.pool,
    config: { ...config, ai: { ...config.ai, gatewayUrl: holding.url, gatewayApiKey: 'sk-bench', providerTimeoutMs: 120_000 } },
    logger: pino({ level: 'silent' }),
    rateLimitFor: () => undefined,
  });
  const holdServer = holdApp.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => holdServer.once('listening', resolve));
  const holdBase = `http://127.0.0.1:${(holdServer.address() as AddressInfo).port}`;
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const controllers = Array.from({ length: OPEN_STREAMS }, () => new AbortController());
  let errors = 0;
  const opened = await Promise.all(
    controllers.map(async (controller, i) => {
      const response = await fetch(`${holdBase}/api/ai/agents/${agent}/chat`, {
        method: 'POST',
        headers: auth,
        signal: controller.signal,
        body: JSON.stringify({ id: `open-${i}`, messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: 'hello' }] }] }),
      });
      if (response.status !== 200) errors++;
      const reader = response.body!.getReader();
      // Wait for the first text delta: the stream is open end to end.
      let seen = '';
      while (!seen.includes('text-delta')) seen += new TextDecoder().decode((await reader.read()).value ?? new Uint8Array());
      held.push(() => controller.abort());
      return reader;
    }),
  );
  const rssOpen = process.memoryUsage().rss;
  while (holding.requests.length < OPEN_STREAMS) await new Promise((resolve) => setTimeout(resolve, 10));
  for (const release of held) release();
  await Promise.allSettled(opened.map((reader) => reader.cancel()));

  const usageRows = await db.pool.oneFirst(
    sql.type(z.strictObject({ n: z.number() }))`SELECT count(*)::int AS n FROM usage_events WHERE user_id IS NOT NULL`,
  );

  const out = [
    `Chat stream bench, ${new Date().toISOString()}, Node ${process.version}, ${TURNS} turns per c=64 cell (100 at c=1).`,
    'The machine is a shared 2-vCPU VM with other sessions running; figures move between runs.',
    '',
    '| turn | c | turns | first text chunk p50 ms: provider / service | added first chunk ms p50 / p99 | whole turn p50 ms: provider / service | added whole turn ms p50 / p99 |',
    '|---|---:|---:|---|---|---|---|',
    ...rows,
    '',
    `Service CPU per turn (process CPU of service runs minus provider-alone runs, per turn): ${cpuPerTurnMs.toFixed(2)} ms`,
    `${OPEN_STREAMS} streams open at once: RSS ${(rssBefore / 2 ** 20).toFixed(0)} MB -> ${(rssOpen / 2 ** 20).toFixed(0)} MB ` +
      `(growth ${((rssOpen - rssBefore) / 2 ** 20).toFixed(1)} MB, client and provider in the same process included); non-200 answers: ${errors}`,
    `Usage events written by the service runs: ${usageRows}`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  holdServer.closeAllConnections();
  holdServer.close();
  server.closeAllConnections();
  server.close();
  await Promise.all([provider.close(), holding.close(), mcp.close()]);
  await db.drop();
  process.exit(0);
}

await main();
