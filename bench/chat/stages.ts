/**
 * Where a chat turn's service CPU goes: the samples of a V8 CPU profile (`.cpuprofile`, as
 * `--cpu-prof` or the inspector's `Profiler.stop` write it) attributed to stages of a turn.
 *
 * A sample's time is the delta to the next sample. Its stage comes from its stack, walked from the
 * leaf to the root: the first frame a rule below matches names the stage, so code called from a
 * stage counts there unless it matches a more specific rule itself (zod under the AI SDK is the AI
 * SDK; a socket write under our SSE stream is a socket write). The database drivers (pg, slonik,
 * ioredis) are the exception: a stack holding a driver frame goes to the first SQL caller above it (the `sql/`
 * module or our function that issued the query), its socket writes included; without one on the
 * stack (a result parsed when the socket delivers it, a promise resumed inside slonik) it stays
 * "database drivers". "socket writes" are the other sockets' writes: the response's and the
 * provider request's. `(idle)` is not CPU and is left out; `(garbage collector)` is GC.
 */

export type CallFrame = { functionName: string; url: string };
export type CpuProfile = {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
};

export const STAGES = [
  'token',
  'policy',
  'reads',
  'history write',
  'tool map',
  'AI SDK',
  'provider I/O',
  'usage write',
  'budget check',
  'turn claim, resumable layer',
  'socket writes',
  'SSE framing, node:stream',
  'HTTP server, Koa, validation',
  'database drivers, no caller on the stack',
  'GC',
  'other',
] as const;
export type Stage = (typeof STAGES)[number];

/** A weak rule names the stage only when no other rule matches a frame further up the stack. */
type Rule = { stage: Stage; url: RegExp; functions?: RegExp; weak?: true };

/** Rules of our code and its libraries; the first that matches a frame names its stage. */
const RULES: Rule[] = [
  {
    stage: 'token',
    url: /\/app\/core\/auth\.ts$/,
    functions: /^(requireAccessToken|bearerClaims|bearerToken|verifyAccessToken|accessTokenKey|isIssuedClaims)$/,
  },
  { stage: 'token', url: /\/node_modules\/(jsonwebtoken|jws|jwa)\// },
  { stage: 'policy', url: /\/app\/core\/auth\.ts$/, functions: /^checkPolicy$/ },
  { stage: 'policy', url: /\/sql\/policies\.ts$/ },
  {
    stage: 'reads',
    url: /\/sql\/chat-conversations\.ts$/,
    functions: /^(findConversationHistory|findConversation|conversationHistoryOf)$/,
  },
  { stage: 'reads', url: /\/sql\/chat-turn-reads\.ts$/ },
  { stage: 'history write', url: /\/sql\/(chat-conversations|tool-approvals)\.ts$/ },
  { stage: 'history write', url: /\/app\/chat\/history\.ts$/ },
  { stage: 'history write', url: /\/app\/chat\/admission\.ts$/, functions: /^(readIncoming|answerOf|invalid)$/ },
  {
    stage: 'reads',
    url: /\/sql\/(agents|provider-keys|agent-mcp-server-connections|agent-mcp-server-tools|tool-permissions|tool-overrides)\.ts$/,
  },
  { stage: 'reads', url: /\/app\/tools\/resolution\.ts$/ },
  { stage: 'tool map', url: /\/app\/chat\/(tool-map|builtin-tools)\.ts$/ },
  { stage: 'usage write', url: /\/app\/chat\/turn\.ts$/, functions: /^saveTurn$/ },
  { stage: 'usage write', url: /\/sql\/usage-events\.ts$/ },
  { stage: 'usage write', url: /\/app\/chat\/provider\.ts$/, functions: /^(usageMeter|transform|tokensOf)$/ },
  { stage: 'budget check', url: /\/app\/analytics\/budget\// },
  { stage: 'budget check', url: /\/sql\/usage-budgets\.ts$/ },
  { stage: 'provider I/O', url: /^node:internal\/deps\/undici\/|\/node_modules\/undici\// },
  { stage: 'provider I/O', url: /\/app\/net\/guarded-fetch\.ts$/, functions: /^(providerFetch|wrapped|arm|transform|flush)$/ },
  { stage: 'AI SDK', url: /\/node_modules\/(ai|@ai-sdk\/[^/]+)\// },
  // The web streams of a chat turn are the AI SDK's (its pipeline and createUIMessageStream)
  // unless a caller says otherwise (undici's response body is provider I/O).
  { stage: 'AI SDK', url: /^node:internal\/webstreams\//, weak: true },
  { stage: 'socket writes', url: /^$/, functions: /^(writev|writeBuffer|writeUtf8String|writeLatin1String|writeAsciiString)$/ },
  {
    stage: 'socket writes',
    url: /^node:(net|internal\/stream_base_commons)$/,
    functions: /^(Socket\.)?(_writev|_writeGeneric|_write)$|^(writevGeneric|writeGeneric|handleWriteReq)$/,
  },
  // A running turn writes its UI chunks as SSE events into its tape; the response reads the tape.
  {
    stage: 'SSE framing, node:stream',
    url: /\/app\/chat\/turn-streams\.ts$/,
    functions: /^(TurnTape\.)?(push|close|read|stream|pull|cancel|#wake)$/,
  },
  { stage: 'SSE framing, node:stream', url: /\/app\/chat\/running-turns\.ts$/, functions: /^#?drive$/ },
  { stage: 'turn claim, resumable layer', url: /\/app\/chat\/(running-turns|turn-claim|turn-streams|turn-waits)\.ts$/ },
  { stage: 'turn claim, resumable layer', url: /\/app\/chat\/turn\.ts$/, functions: /^(settleStopped|endingChunk)$/ },
  { stage: 'turn claim, resumable layer', url: /\/sql\/chat-turns\.ts$|\/node_modules\/resumable-stream\// },
  { stage: 'SSE framing, node:stream', url: /^node:internal\/streams\//, weak: true },
  { stage: 'HTTP server, Koa, validation', url: /^node:_http_|\/node_modules\/(koa|@koa|koa-[^/]+|ajv|raw-body|co-body)\/|\/app\/core\// },
];
const DRIVER = /\/node_modules\/(pg|pg-protocol|pg-pool|slonik|@slonik\/[^/]+|postgres-array|pg-types|ioredis)\//;

function ruleOf(frame: CallFrame): Rule | undefined {
  return RULES.find((rule) => rule.url.test(frame.url) && (!rule.functions || rule.functions.test(frame.functionName)));
}

/**
 * The first stage of the frames, leaf first: a strong rule's, else the first weak one's. Above a
 * driver frame only a caller of the query counts (not the streams or the server it runs under).
 */
function firstStage(frames: readonly CallFrame[], callerOnly = false): Stage | undefined {
  let weak: Stage | undefined;
  for (const frame of frames) {
    const rule = ruleOf(frame);
    if (!rule || (callerOnly && (rule.weak || rule.stage === 'HTTP server, Koa, validation'))) continue;
    if (!rule.weak) return rule.stage;
    weak ??= rule.stage;
  }
  return weak;
}

/** The stage of one stack, leaf first; undefined for idle time. */
export function stageOfStack(stack: readonly CallFrame[]): Stage | undefined {
  const leaf = stack[0];
  if (!leaf || leaf.functionName === '(idle)') return undefined;
  if (leaf.functionName === '(garbage collector)') return 'GC';
  const driverAt = stack.findIndex((frame) => DRIVER.test(frame.url));
  if (driverAt >= 0) return firstStage(stack.slice(driverAt + 1), true) ?? 'database drivers, no caller on the stack';
  return firstStage(stack) ?? 'other';
}

export type StageTimes = { byStage: Map<Stage, number>; sampledMs: number; otherLeaves: Map<string, number> };

/** Milliseconds of samples per stage (idle left out), and the leaves of "other" by their time. */
export function stageTimes(profile: CpuProfile): StageTimes {
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const stageOfNode = new Map<number, Stage | undefined>();
  const byStage = new Map<Stage, number>(STAGES.map((stage) => [stage, 0]));
  const otherLeaves = new Map<string, number>();
  let sampledMs = 0;
  profile.samples.forEach((id, i) => {
    if (!stageOfNode.has(id)) {
      const stack: CallFrame[] = [];
      for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) stack.push(frames.get(at)!);
      stageOfNode.set(id, stageOfStack(stack));
    }
    const stage = stageOfNode.get(id);
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (!stage) return;
    sampledMs += ms;
    byStage.set(stage, byStage.get(stage)! + ms);
    if (stage === 'other') {
      const leaf = frames.get(id)!;
      const name = `${leaf.functionName || '(anonymous)'} ${leaf.url.replace(/^.*\/node_modules\//, '')}`.trim();
      otherLeaves.set(name, (otherLeaves.get(name) ?? 0) + ms);
    }
  });
  return { byStage, sampledMs, otherLeaves };
}

/**
 * The table of a profiled run of `turns` turns. The profiler's sample deltas are wall time: a
 * process descheduled on a busy machine gets the wait added to the sample before it, so each
 * stage's CPU is its share of the sampled time times the main thread's CPU (/proc); the process's
 * other threads (GC helpers, the compiler, the profiler's own) are a line of their own.
 */
export function stageTable(times: StageTimes, turns: number, cpu: { mainThreadMs: number; processMs: number }): string[] {
  const cpuOf = (ms: number) => (times.sampledMs === 0 ? 0 : (ms / times.sampledMs) * cpu.mainThreadMs);
  const perTurn = (ms: number) => (cpuOf(ms) / turns).toFixed(2);
  const share = (ms: number) => `${((100 * ms) / times.sampledMs).toFixed(1)} %`;
  const others = [...times.otherLeaves]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([name, ms]) => `${name} ${perTurn(ms)}`);
  return [
    '| stage | CPU ms per turn | share of the samples |',
    '|---|---:|---:|',
    ...STAGES.map((stage) => `| ${stage} | ${perTurn(times.byStage.get(stage)!)} | ${share(times.byStage.get(stage)!)} |`),
    `| **the main thread** (/proc) | **${(cpu.mainThreadMs / turns).toFixed(2)}** | 100 % |`,
    `| the other threads (GC helpers, compiler, the profiler) | ${((cpu.processMs - cpu.mainThreadMs) / turns).toFixed(2)} | |`,
    '',
    `Sampled ${(times.sampledMs / turns).toFixed(2)} ms per turn of wall time on the main thread (idle left out). "other" by leaf, ms per turn: ${others.join('; ')}`,
  ];
}
