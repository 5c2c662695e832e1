/**
 * `npm run bench:evals`: an evaluation run of 50 cases against a provider that answers each call
 * in 200 ms, on one service instance (bench/service-child.ts, its own process), and in the same
 * run the service CPU of chat turns against the same provider, for comparison (docs/evaluations.md).
 *
 * Checks: the run's wall time (POST to the end the run records) <= 4 s, and the service CPU per
 * case <= the service CPU per chat turn + 2 ms. CPU is the service process's utime + stime from
 * /proc (bench/service-process.ts), as bench/chat measures a chat turn's.
 *
 *   npm run bench:evals
 *   BENCH_CASES=50 BENCH_TURNS=50 BENCH_PROVIDER_MS=200 npm run bench:evals
 */
import { setTimeout as delay } from 'node:timers/promises';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { accessToken } from '../../test/analytics/support.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { startOpenAiPeer, type Reply } from '../../test/helpers/openai-peer.ts';
import { cpuMsOf, startService, stopService } from '../service-process.ts';
import { runConcurrent, timeStream } from '../chat/timing.ts';

const CASES = Number(process.env.BENCH_CASES ?? 50);
const TURNS = Number(process.env.BENCH_TURNS ?? 50);
const PROVIDER_MS = Number(process.env.BENCH_PROVIDER_MS ?? 200);
/** Chat turns run at the run's own parallelism (4 cases at once). */
const CONCURRENCY = 4;
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main() {
  const db = await createTestDatabase();
  await seedDemo(db.pool);
  const provider = await startOpenAiPeer(async (): Promise<Reply> => {
    await delay(PROVIDER_MS);
    return { kind: 'text', text: 'Refunds take five business days from the day we receive the item.', pieces: 8 };
  });
  const { child, base } = await startService({ databaseUrl: db.url, gatewayUrl: provider.url });
  const pid = child.pid!;
  const agent = AGENTS.support.id;
  const auth = {
    authorization: `Bearer ${accessToken(USERS.owner.id, ORGANIZATIONS.demoAgency.id)}`,
    'content-type': 'application/json',
  };
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}/api${path}`, { method, headers: auth, ...(body ? { body: JSON.stringify(body) } : {}) });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  // Text only, as the cases: the knowledge tools are left out so both paths make one model call each.
  await api('PUT', `/ai/agents/${agent}/tools`, { tools: [] });
  const caseIds: string[] = [];
  for (let index = 0; index < CASES; index += 1) {
    const created = await api('POST', `/ai/agents/${agent}/eval-cases`, {
      name: `Refunds ${index}`,
      messages: [{ role: 'user', parts: [{ type: 'text', text: `How long do refunds take? (${index})` }] }],
      expect: { contains: ['five business days'], notContains: ['sorry'] },
    });
    caseIds.push(created.id as string);
  }

  let chats = 0;
  const chatTurn = async () => {
    const started = performance.now();
    const response = await fetch(`${base}/api/ai/agents/${agent}/chat`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        id: `bench-${chats++}`,
        messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: 'How long do refunds take?' }] }],
      }),
    });
    if (response.status !== 200) throw new Error(`chat answered ${response.status}`);
    return timeStream(response, started, (data) => data.includes('"type":"text-delta"'));
  };
  const evaluate = async (ids: string[]) => {
    const started = performance.now();
    const { id } = await api('POST', `/ai/agents/${agent}/eval-runs`, { caseIds: ids });
    for (;;) {
      const run = await api('GET', `/ai/agents/${agent}/eval-runs/${id as string}`);
      if (run.status !== 'running') {
        const recorded = Date.parse(run.endedAt as string) - Date.parse(run.startedAt as string);
        return { wallMs: performance.now() - started, recordedMs: recorded, status: run.status as string };
      }
      await delay(100);
    }
  };

  // Warm-up (JIT, pools, the model cache): chat turns and a short run.
  await runConcurrent(12, CONCURRENCY, chatTurn);
  await evaluate(caseIds.slice(0, 8));

  const chatBefore = cpuMsOf(pid);
  const chatStarted = performance.now();
  await runConcurrent(TURNS, CONCURRENCY, chatTurn);
  const chatWallMs = performance.now() - chatStarted;
  const chatCpuMs = (cpuMsOf(pid) - chatBefore) / TURNS;

  const runBefore = cpuMsOf(pid);
  const run = await evaluate(caseIds);
  const runCpuMs = (cpuMsOf(pid) - runBefore) / CASES;
  await stopService(child);
  await provider.close();
  await db.drop();

  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const lines = [
    `Evaluation bench (${new Date().toISOString().slice(0, 10)}, shared 2-vCPU VM, other sessions running; load ${(await loadAverage()).toFixed(2)}): ` +
      `${CASES} cases, provider answering each call in ${PROVIDER_MS} ms, one instance; chat turns ${TURNS} at c=${CONCURRENCY} against the same provider.`,
    '',
    '| measure | value | bound | verdict |',
    '|---|---|---|---|',
    `| run of ${CASES} cases, wall time (POST to the status read) | ${run.wallMs.toFixed(0)} ms (recorded start to end: ${run.recordedMs} ms; status ${run.status}) | <= 4000 ms | ${verdict(run.wallMs <= 4000)} |`,
    `| service CPU per case | ${runCpuMs.toFixed(2)} ms | <= chat turn + 2 ms = ${(chatCpuMs + 2).toFixed(2)} ms | ${verdict(runCpuMs <= chatCpuMs + 2)} |`,
    `| service CPU per chat turn (same run) | ${chatCpuMs.toFixed(2)} ms (${TURNS} turns in ${chatWallMs.toFixed(0)} ms) | | |`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function loadAverage(): Promise<number> {
  const { loadavg } = await import('node:os');
  return loadavg()[0]!;
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
