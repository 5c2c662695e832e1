import test from 'ava';
import { stageOfStack, stageTable, stageTimes, type CallFrame, type CpuProfile } from '../../bench/chat/stages.ts';

const root = '/srv/agents';
const frame = (functionName: string, url = ''): CallFrame => ({ functionName, url });
const sdk = frame('runUpdateMessageJob', `${root}/node_modules/ai/dist/index.mjs`);
const zod = frame('parse', `${root}/node_modules/zod/v4/core/schemas.js`);
const pg = frame('query', `${root}/node_modules/pg/lib/client.js`);
const slonik = frame('executionRoutine', `${root}/node_modules/slonik/dist/connectionMethods/query.js`);
const findAgent = frame('findAgentInOrganization', `${root}/sql/agents.ts`);
const insertUsage = frame('insertUsageEvents', `${root}/sql/usage-events.ts`);
const writev = frame('writev');
const netWritev = frame('Socket._writev', 'node:net');
const sse = frame('read', `${root}/app/chat/turn-streams.ts`);
const webstream = frame('readableStreamDefaultControllerEnqueue', 'node:internal/webstreams/readablestream');
const undici = frame('onData', 'node:internal/deps/undici/undici');

test('a library called from the AI SDK counts as the AI SDK, and code no rule knows is other', (t) => {
  t.is(stageOfStack([zod, sdk, frame('(root)')]), 'AI SDK');
  t.is(stageOfStack([zod, frame('(root)')]), 'other');
});

test('the database driver and its socket writes count for the SQL module that issued the query', (t) => {
  t.is(stageOfStack([writev, netWritev, pg, slonik, findAgent]), 'reads');
  t.is(stageOfStack([writev, netWritev, pg, slonik, insertUsage, sdk]), 'usage write');
  t.is(
    stageOfStack([
      frame('parseRow', `${root}/node_modules/pg-protocol/dist/parser.js`),
      frame('onStreamRead', 'node:internal/stream_base_commons'),
    ]),
    'database drivers, no caller on the stack',
  );
});

test('a socket write of the response is a socket write, its SSE framing is not', (t) => {
  t.is(stageOfStack([writev, netWritev, frame('write', 'node:internal/streams/writable'), sse]), 'socket writes');
  t.is(stageOfStack([frame('stringify'), sse]), 'SSE framing, node:stream');
  // The write of a socket's JavaScript side, below the native writev.
  t.is(stageOfStack([netWritev, frame('write', 'node:internal/streams/writable'), sse]), 'socket writes');
});

test("a web stream counts as the AI SDK's unless undici reads it as the provider's body", (t) => {
  t.is(stageOfStack([webstream, frame('processTicksAndRejections', 'node:internal/process/task_queues')]), 'AI SDK');
  t.is(stageOfStack([webstream, undici]), 'provider I/O');
  t.is(stageOfStack([webstream, sdk, undici]), 'AI SDK');
});

test('the token and the policy are told apart inside app/core/auth.ts', (t) => {
  const auth = `${root}/app/core/auth.ts`;
  t.is(stageOfStack([frame('verify', `${root}/node_modules/jsonwebtoken/verify.js`), frame('requireAccessToken', auth)]), 'token');
  t.is(stageOfStack([frame('checkPolicy', auth)]), 'policy');
  t.is(stageOfStack([pg, frame('userHasPermission', `${root}/sql/policies.ts`), frame('checkPolicy', auth)]), 'policy');
});

test("a profile's samples add up per stage, idle left out, each sample timed to the next", (t) => {
  // root -> handler(sql/agents) -> pg ; root -> (idle) ; root -> (garbage collector) ; root -> sdk -> zod
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 4, 5, 6] },
      { id: 2, callFrame: findAgent, children: [3] },
      { id: 3, callFrame: pg },
      { id: 4, callFrame: frame('(idle)') },
      { id: 5, callFrame: frame('(garbage collector)') },
      { id: 6, callFrame: sdk, children: [7] },
      { id: 7, callFrame: zod },
    ],
    samples: [3, 4, 5, 7, 3, 1],
    timeDeltas: [0, 1000, 5000, 2000, 1500, 500, 0],
  };
  const times = stageTimes(profile);
  t.is(times.byStage.get('reads'), 1.5);
  t.is(times.byStage.get('GC'), 2);
  t.is(times.byStage.get('AI SDK'), 1.5);
  t.is(times.byStage.get('other'), 0);
  t.is(times.sampledMs, 5);
});

test("the table gives each stage its share of the main thread's CPU, not the wall time sampled", (t) => {
  const times = stageTimes({
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 3] },
      { id: 2, callFrame: sdk },
      { id: 3, callFrame: frame('(garbage collector)') },
    ],
    samples: [2, 2, 3, 2],
    timeDeltas: [0, 3000, 3000, 2000, 0],
  });
  // 8 ms sampled (6 AI SDK, 2 GC) over 2 turns; the main thread had 4 ms of CPU, the process 5.
  const rows = stageTable(times, 2, { mainThreadMs: 4, processMs: 5 });
  t.true(rows.includes('| AI SDK | 1.50 | 75.0 % |'));
  t.true(rows.includes('| GC | 0.50 | 25.0 % |'));
  t.true(rows.includes('| the other threads (GC helpers, compiler, the profiler) | 0.50 | |'));
});
