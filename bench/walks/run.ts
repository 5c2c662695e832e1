/**
 * The three request walks of issue 42, measured from what runs rather than from what a reader
 * guesses: each walk is sent twice (the first loads every module it needs), and V8's precise
 * coverage (`Profiler.takePreciseCoverage` with call counts, reset on every take) lists the
 * project files that had at least one function called during the second one. A file counts
 * once; its lines are its whole length (what a reader opens).
 *
 * Walks, on real PostgreSQL (DATABASE_URL, default the local server's `postgres` database as a
 * template source, see test/helpers/database.ts):
 * - chat with an approval: a turn whose model calls an MCP tool that needs approval (the turn
 *   pauses), then the approving turn (the tool runs on a loopback MCP server, the model answers);
 * - OTLP: one OTLP/JSON export with a `gen_ai` span, authenticated by an API key;
 * - PUT tools: replacing an agent's tool permissions.
 *
 * The files are split into the request's own (its area's routes and modules, `sql/`) and the
 * chain every route shares (`app/core/`, `app/db/`, the app shell, the console's static-file
 * middleware) and the libraries (`lib/`).
 *
 *   npm run bench:walks            prints the table and the files of each walk
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { pino } from 'pino';
import request from 'supertest';
import { createApp } from '../../app/app.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { AGENTS, DEMO_PASSWORD } from '../../seeds/demo-fixtures.ts';
import { testConfig } from '../../test/helpers/app.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { startMcpToolPeer } from '../../test/helpers/mcp-tool-peer.ts';
import { startOpenAiPeer } from '../../test/helpers/openai-peer.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const agentId = AGENTS.support.id;

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

/** Project files with a function called since the last take (the take resets the counts). */
async function filesRunSinceLastTake(): Promise<string[]> {
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files = new Set<string>();
  for (const script of result) {
    if (!script.url.startsWith('file://')) continue;
    const path = fileURLToPath(script.url);
    if (!path.startsWith(ROOT) || path.includes('/node_modules/')) continue;
    const relative = path.slice(ROOT.length);
    if (!/^(app|sql|lib|seeds)\//.test(relative)) continue;
    if (script.functions.some((fn) => fn.ranges[0]!.count > 0)) files.add(relative);
  }
  return [...files].sort();
}

const lineCount = (relative: string) => readFileSync(`${ROOT}${relative}`, 'utf8').split('\n').length - 1;
/** The chain every request passes (app shell, core middleware, the console's static files, the pool) and the libraries. */
const shared = (file: string) =>
  /^(app\/core|app\/db|lib)\//.test(file) || file === 'app/dashboard/serve.ts' || /^app\/[^/]+\.ts$/.test(file);

const db = await createTestDatabase();
await seedDemo(db.pool);
const mcp = await startMcpToolPeer({});
const provider = await startOpenAiPeer((chat) =>
  chat.messages.some((message) => message.role === 'tool')
    ? { kind: 'text', text: 'Opened.' }
    : { kind: 'tool-call', toolName: 'create_issue', input: { title: 'Walk' } },
);
const base = testConfig({ nodeEnv: 'development' });
const config = { ...base, ai: { ...base.ai, gatewayApiKey: 'sk-walk-platform-key-0001', gatewayUrl: provider.url, maxSteps: 8 } };
const app = createApp({ db: db.pool, config, logger: pino({ level: 'silent' }), rateLimits: false });
const server = app.listen(0, '127.0.0.1');
await new Promise<void>((resolve) => server.once('listening', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const http = () => request(server);

const login = await http().post('/api/identity/auth/user/login').send({ email: 'owner@demo.test', password: DEMO_PASSWORD }).expect(200);
const auth = `Bearer ${(login.body as { accessToken: string }).accessToken}`;
const added = await http()
  .post(`/api/ai/agents/${agentId}/mcp-servers`)
  .set('authorization', auth)
  .send({ name: 'Walk peer', transportType: 'http', url: mcp.url })
  .expect(201);
const serverId = (added.body as { id: string }).id;
const tools = [
  { toolName: 'create_issue', permissionStatus: 'needs_approval', providerKey: `mcp:${serverId}` },
  { toolName: 'search_knowledge_base', permissionStatus: 'always_allow', providerKey: 'knowledge' },
];
const created = await http()
  .post('/api/api-keys')
  .set('authorization', auth)
  .send({ name: 'walk', scopes: ['usage:write'] })
  .expect(201);
const apiKey = (created.body as { key: string }).key;

async function send(chatId: string, messages: UIMessage[]): Promise<UIMessage> {
  const transport = new DefaultChatTransport<UIMessage>({
    api: `${origin}/api/ai/agents/${agentId}/chat`,
    headers: { authorization: auth },
  });
  const stream = await transport.sendMessages({
    chatId,
    messages,
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  const last = messages.at(-1);
  let message: UIMessage | undefined;
  for await (const state of readUIMessageStream<UIMessage>({
    stream,
    ...(last?.role === 'assistant' ? { message: structuredClone(last) } : {}),
  })) {
    message = state;
  }
  return message!;
}

function approve(message: UIMessage): UIMessage {
  const parts = message.parts.map((part) => {
    const candidate = part as { state?: string; approval?: { id: string } };
    if (candidate.state !== 'approval-requested' || !candidate.approval) return part;
    return { ...part, state: 'approval-responded', approval: { id: candidate.approval.id, approved: true } } as typeof part;
  });
  return { ...message, parts };
}

let round = 0;
const walks: Record<string, () => Promise<void>> = {
  async 'chat with an approval'() {
    const user: UIMessage = { id: `walk-user-${round}`, role: 'user', parts: [{ type: 'text', text: 'open an issue' }] };
    const paused = await send(`walk-${round}`, [user]);
    const done = await send(`walk-${round}`, [user, approve(paused)]);
    if (!JSON.stringify(done.parts).includes('output-available'))
      throw new Error(`the approved tool did not run: ${JSON.stringify(done.parts)}`);
  },
  async OTLP() {
    const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
    const start = Date.UTC(2026, 10, 1, 9) + round * 1000;
    const attribute = (key: string, value: string | number) => ({
      key,
      value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value },
    });
    const span = {
      traceId: `${round}`.padStart(32, 'a'),
      spanId: `${round}`.padStart(16, 'b'),
      name: 'chat gpt-4o',
      kind: 3,
      startTimeUnixNano: nanos(start),
      endTimeUnixNano: nanos(start + 800),
      attributes: [
        attribute('gen_ai.operation.name', 'chat'),
        attribute('gen_ai.request.model', 'gpt-4o'),
        attribute('gen_ai.usage.input_tokens', 120),
        attribute('gen_ai.usage.output_tokens', 40),
      ],
    };
    const body = {
      resourceSpans: [
        { resource: { attributes: [attribute('service.name', 'walk')] }, scopeSpans: [{ scope: { name: 'walk' }, spans: [span] }] },
      ],
    };
    await http()
      .post('/api/otlp/v1/traces')
      .set('authorization', `Bearer ${apiKey}`)
      .set('content-type', 'application/json')
      .send(body)
      .expect(200);
  },
  async 'PUT tools'() {
    await http().put(`/api/ai/agents/${agentId}/tools`).set('authorization', auth).send({ tools }).expect(200);
  },
};

await walks['PUT tools']!();
const rows: string[] = [];
const details: string[] = [];
for (const [name, walk] of Object.entries(walks)) {
  await walk(); // loads what the walk needs
  round += 1;
  await filesRunSinceLastTake();
  await walk();
  round += 1;
  const files = await filesRunSinceLastTake();
  const own = files.filter((file) => !shared(file));
  const chain = files.filter(shared);
  const lines = (list: string[]) => list.reduce((sum, file) => sum + lineCount(file), 0);
  rows.push(`| ${name} | ${own.length} | ${lines(own)} | ${chain.length} | ${lines(chain)} | ${files.length} | ${lines(files)} |`);
  details.push(`\n${name}:\n  own:   ${own.join(' ')}\n  chain: ${chain.join(' ')}`);
}

console.log('| walk | own files | own lines | shared chain files | chain lines | all files | all lines |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const row of rows) console.log(row);
console.log(details.join('\n'));

/** Every TypeScript source file under `folder` (tests, generated code and built output aside). */
const sources = (folder: string): string[] =>
  readdirSync(`${ROOT}${folder}`, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.generated.ts') && !/(^|\/)(test|dist|node_modules|proto)\//.test(file))
    .map((file) => `${folder}/${file}`);
console.log('\n| source | files | lines |\n|---|---:|---:|');
for (const folder of ['app', 'sql', 'lib', 'dashboard/src']) {
  const files = sources(folder);
  console.log(`| ${folder}/ | ${files.length} | ${files.reduce((sum, file) => sum + lineCount(file), 0)} |`);
}

await session.post('Profiler.stopPreciseCoverage');
session.disconnect();
server.closeAllConnections();
server.close();
await Promise.all([mcp.close(), provider.close()]);
await db.drop();
