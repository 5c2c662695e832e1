/**
 * Chat stream benchmark (issue 24): the service between an AI SDK client and a scripted
 * OpenAI-compatible provider on loopback, against the provider alone.
 *
 * For c = 1 and c = 64 concurrent chats, with and without one MCP tool call (an always_allow tool
 * on a real SDK MCP server), it measures the time to the first text chunk and the whole turn
 * (to `data: [DONE]`) through `POST /api/ai/agents/:agentId/chat`, and the same for the provider
 * alone (the tool turn alone is its two provider calls back to back, without the MCP server).
 * Added latency = service - provider alone (p50, p99). The service runs in a child process of its
 * own (bench/service-child.ts); the clients, the scripted provider and the MCP server stay here, so
 * the CPU per turn (the child's utime + stime from /proc over the service runs, per turn) and the
 * RSS growth while 200 streams are held open at once (the child's VmRSS, after a forced GC before
 * and with the streams open) are the service's own. The floors (bench/chat/floor.ts) put the
 * first-chunk figure beside what a bare proxy and the AI SDK alone add, with none of our work.
 *
 *   npm run bench:chat                     # BENCH_TURNS (default 200) turns per cell
 *   BENCH_CPU_PROF=1 npm run bench:chat    # also writes a V8 CPU profile of the service's whole run to .data-bench/
 *   BENCH_PROFILE_C=64 npm run bench:chat  # the stage table from text turns at c=64 (default c=1)
 *
 * After the timed cells, the same text turns are run once more with the service's CPU sampled
 * (bench/chat/stages.ts attributes the samples to the stages of a turn); that run's profile is
 * kept in .data-bench/. It ends with what metering adds (bench/chat/metering.ts): the budget
 * reservation per model call and the first chunk of a new conversation with titles on and off.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { sql } from 'slonik';
import { z } from 'zod';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { accessToken } from '../../test/analytics/support.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { startMcpToolPeer } from '../../test/helpers/mcp-tool-peer.ts';
import { startOpenAiPeer, type Reply } from '../../test/helpers/openai-peer.ts';
import { cpuMsOf, profileService, rssAfterGc, rssMbOf, startService, statementsOf, stopService } from '../service-process.ts';
import { measureFloors } from './floor.ts';
import { measureMetering } from './metering.ts';
import { measureResumable } from './resumable.ts';
import { stageTable, stageTimes, type CpuProfile } from './stages.ts';
import { percentile, runConcurrent, timeStream, type Sample } from './timing.ts';

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const OPEN_STREAMS = 200;
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main() {
  const db = await createTestDatabase();
  await seedDemo(db.pool);
  // The same provider answers the timed turns and then (holding = true) hangs after one chunk.
  let holding = false;
  const provider = await startOpenAiPeer((request): Reply => {
    if (holding) return { kind: 'hang-after-first-chunk' };
    const hasToolResult = request.messages.some((m) => m.role === 'tool');
    const wantsTool = JSON.stringify(request.messages).includes('use the tool');
    if (wantsTool && !hasToolResult) return { kind: 'tool-call', toolName: 'search_docs', input: { query: 'limits' } };
    return { kind: 'text', text: 'The scripted provider answers with a short paragraph of text.', pieces: 8 };
  });
  const mcp = await startMcpToolPeer();
  const { child, base } = await startService({ databaseUrl: db.url, gatewayUrl: provider.url });
  const pid = child.pid!;
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

  // PostgreSQL round trips of a text turn (every statement, BEGIN and COMMIT included), 20 turns at c=1.
  await statementsOf(child);
  const countedTurns = 20;
  await runConcurrent(countedTurns, 1, serviceTurn('hello'));
  const statements = Object.entries(await statementsOf(child)).sort(([, a], [, b]) => b - a);
  const roundTrips = statements.reduce((sum, [, n]) => sum + n, 0) / countedTurns;
  log(`PostgreSQL round trips per text turn: ${roundTrips.toFixed(2)}`);
  for (const [text, n] of statements) log(`  ${(n / countedTurns).toFixed(2)}  ${text}`);

  const rows: string[] = [];
  const firstChunkAdded: number[] = [];
  const wholeTurnAdded: number[] = [];
  let textCpuMs = 0;
  let textTurns = 0;
  let serviceCpuMs = 0;
  let serviceTurns = 0;
  for (const withTool of [false, true]) {
    for (const concurrency of [1, 64]) {
      const turns = concurrency === 1 ? Math.min(TURNS, 100) : TURNS;
      const alone = await runConcurrent(turns, concurrency, providerTurn(withTool));
      const cpuBefore = cpuMsOf(pid);
      const through = await runConcurrent(turns, concurrency, serviceTurn(withTool ? 'use the tool please' : 'hello'));
      const cellCpuMs = cpuMsOf(pid) - cpuBefore;
      serviceCpuMs += cellCpuMs;
      serviceTurns += turns;
      if (!withTool) [textCpuMs, textTurns] = [textCpuMs + cellCpuMs, textTurns + turns];
      const f = (values: number[], p: number) => percentile(values, p).toFixed(1);
      const first = (s: Sample[]) => s.map((x) => x.firstMs);
      const total = (s: Sample[]) => s.map((x) => x.totalMs);
      firstChunkAdded.push(percentile(first(through), 50) - percentile(first(alone), 50));
      wholeTurnAdded.push(percentile(total(through), 50) - percentile(total(alone), 50));
      rows.push(
        `| ${withTool ? 'one MCP tool call' : 'text only'} | ${concurrency} | ${turns} | ${f(first(alone), 50)} / ${f(first(through), 50)} | ` +
          `${(percentile(first(through), 50) - percentile(first(alone), 50)).toFixed(1)} / ${(percentile(first(through), 99) - percentile(first(alone), 99)).toFixed(1)} | ` +
          `${f(total(alone), 50)} / ${f(total(through), 50)} | ${(percentile(total(through), 50) - percentile(total(alone), 50)).toFixed(1)} / ${(percentile(total(through), 99) - percentile(total(alone), 99)).toFixed(1)} | ` +
          `${(cellCpuMs / turns).toFixed(1)} |`,
      );
      log(rows.at(-1)!);
    }
  }
  const cpuPerTurnMs = serviceCpuMs / serviceTurns;
  const { firstChunk: floors, wholeTurnAt64 } = await measureFloors(
    provider.url,
    Math.min(TURNS, 100),
    { providerAlone: providerTurn(false), service: serviceTurn('hello'), servicePid: pid },
    TURNS,
  );

  const [sdk, service] = [floors[2]!, floors[3]!];
  const [sdkAt64, serviceAt64] = [wholeTurnAt64[2]!, wholeTurnAt64[3]!];

  // Where a text turn's CPU goes: text turns at c=1 (BENCH_PROFILE_C) again, the service's CPU sampled.
  const profiledConcurrency = Number(process.env.BENCH_PROFILE_C ?? 1);
  const profiledTurns = profiledConcurrency === 1 ? Math.min(TURNS, 100) : TURNS;
  const [processBefore, mainBefore] = [cpuMsOf(pid), cpuMsOf(pid, pid)];
  const { profilePath } = await profileService(child, () => runConcurrent(profiledTurns, profiledConcurrency, serviceTurn('hello')));
  const stages = stageTable(stageTimes(JSON.parse(readFileSync(profilePath, 'utf8')) as CpuProfile), profiledTurns, {
    mainThreadMs: cpuMsOf(pid, pid) - mainBefore,
    processMs: cpuMsOf(pid) - processBefore,
  });

  // 200 streams open at once: the provider sends one chunk and waits until the client goes away.
  holding = true;
  const rssBefore = await rssAfterGc(child);
  const controllers = Array.from({ length: OPEN_STREAMS }, () => new AbortController());
  let errors = 0;
  const opened = await Promise.all(
    controllers.map(async (controller, i) => {
      const response = await fetch(`${base}/api/ai/agents/${agent}/chat`, {
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
      return reader;
    }),
  );
  const rssOpenRaw = rssMbOf(pid);
  const rssOpen = await rssAfterGc(child);
  for (const controller of controllers) controller.abort();
  await Promise.allSettled(opened.map((reader) => reader.cancel()));
  // A disconnect is not a stop (issue 40): the turns still run; the stop route ends them.
  await Promise.all(
    controllers.map((_, i) => fetch(`${base}/api/ai/agents/${agent}/chat/open-${i}/stop`, { method: 'POST', headers: auth })),
  );
  const resumable = await measureResumable();
  const metering = await measureMetering();

  const usageRows = await db.pool.oneFirst(
    sql.type(z.strictObject({ n: z.number() }))`SELECT count(*)::int AS n FROM usage_events WHERE user_id IS NOT NULL`,
  );

  const growth = rssOpen - rssBefore;
  const verdict = (ok: boolean) => (ok ? 'pass' : 'miss');
  const out = [
    `Chat stream bench, ${new Date().toISOString()}, Node ${process.version}, ${TURNS} turns per c=64 cell (100 at c=1).`,
    'The machine is a shared 2-vCPU VM with other sessions running; figures move between runs.',
    'The service runs in its own process; CPU and RSS below are that process alone.',
    '',
    '| turn | c | turns | first text chunk p50 ms: provider / service | added first chunk ms p50 / p99 | whole turn p50 ms: provider / service | added whole turn ms p50 / p99 | service CPU per turn ms |',
    '|---|---:|---:|---|---|---|---|---:|',
    ...rows,
    '',
    `Service CPU per turn (the service process's utime + stime over the service runs / ${serviceTurns} turns): ${cpuPerTurnMs.toFixed(2)} ms; ` +
      `per text turn (c=1 and c=64): ${(textCpuMs / textTurns).toFixed(2)} ms`,
    `${OPEN_STREAMS} streams open at once: service RSS after GC ${rssBefore.toFixed(0)} MB -> ${rssOpen.toFixed(0)} MB ` +
      `(${rssOpenRaw.toFixed(0)} MB before the GC); non-200 answers: ${errors}`,
    `Usage events written by the service runs: ${usageRows}`,
    `PostgreSQL round trips per text turn (statements sent, BEGIN and COMMIT included; ${countedTurns} turns at c=1): ${roundTrips.toFixed(2)}`,
    '',
    "The floors: a text turn at c=1 through proxies that do none of the service's work, in rounds interleaved with the service.",
    '',
    '| path | first text chunk p50 ms | added to the provider alone, p50 ms | CPU per turn ms (its process) |',
    '|---|---:|---:|---:|',
    ...floors.map(
      (row) =>
        `| ${row.path} | ${row.firstP50.toFixed(1)} | ${row.addedP50.toFixed(1)} | ${row.cpuPerTurnMs?.toFixed(2) ?? '(the bench process)'} |`,
    ),
    '',
    `The same paths at c=64, ${TURNS} text turns each (the whole-turn target's floors; the service's cell run last):`,
    '',
    '| path | whole turn p50 ms | added to the provider alone, p50 ms | CPU per turn ms (its process) |',
    '|---|---:|---:|---:|',
    ...wholeTurnAt64.map(
      (row) =>
        `| ${row.path} | ${row.wholeP50.toFixed(1)} | ${row.addedP50.toFixed(1)} | ${row.cpuPerTurnMs?.toFixed(2) ?? '(the bench process)'} |`,
    ),
    '',
    `Where a text turn's service CPU goes (${profiledTurns} text turns at c=${profiledConcurrency}, the service sampled every ms; profile ${profilePath}):`,
    '',
    ...stages,
    '',
    '| target | measured | result |',
    '|---|---|---|',
    `| service CPU per text turn <= 12 ms | ${(textCpuMs / textTurns).toFixed(2)} ms | ${verdict(textCpuMs / textTurns <= 12)} |`,
    `| added first chunk p50, text, c=1 <= the AI SDK alone + 2 ms (floor rounds) | ${service.addedP50.toFixed(1)} ms against ${sdk.addedP50.toFixed(1)} + 2 ms ` +
      `(main cell: ${firstChunkAdded[0]!.toFixed(1)} ms) | ${verdict(service.addedP50 <= sdk.addedP50 + 2)} |`,
    `| added whole turn p50, text, c=64 <= 400 ms | ${wholeTurnAdded[1]!.toFixed(1)} ms (floor cells: the service ${serviceAt64.addedP50.toFixed(1)}, ` +
      `the AI SDK alone ${sdkAt64.addedP50.toFixed(1)}) | ${verdict(wholeTurnAdded[1]! <= 400)} |`,
    `| ${OPEN_STREAMS} concurrent open streams: service RSS growth < 100 MB | ${growth.toFixed(1)} MB | ${verdict(growth < 100)} |`,
    `| no error (non-200 answers) | ${errors} | ${verdict(errors === 0)} |`,
    '',
    ...resumable,
    '',
    ...metering,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  await stopService(child);
  await Promise.all([provider.close(), mcp.close()]);
  await db.drop();
  process.exit(0);
}

await main();
