import anyTest from 'ava';
import type { UIMessage } from 'ai';
import { sql } from 'slonik';
import { registerBuiltinExecutor } from '../../app/tools/deployment-executors.ts';
import { withTestApp } from '../helpers/app.ts';
import type { Reply } from '../helpers/openai-peer.ts';
import {
  addMcpServer,
  agentId,
  bearer,
  chatConfig,
  mcpPeer,
  provider,
  sendChat,
  serve,
  setTools,
  textOf,
  userMessage,
  type T,
} from './support.ts';

const test = withTestApp(anyTest, { app: { config: chatConfig() } });

type ToolPart = { type: string; state: string; toolCallId: string; input?: unknown; output?: unknown; errorText?: string };
const toolParts = (message: UIMessage | undefined) =>
  (message?.parts ?? []).filter((part) => 'toolCallId' in part) as unknown as ToolPart[];

/** A provider that calls `toolName` with `input` first, then answers text. */
const callThenText =
  (toolName: string, input: unknown) =>
  (_: unknown, index: number): Reply =>
    index === 0 ? { kind: 'tool-call', toolName, input } : { kind: 'text', text: 'All done.' };

/** `list_events` run by a registered executor that records its calls; in the agent's set at `level`. */
async function withListEvents(t: T, auth: string, level: 'always_allow' | 'needs_approval') {
  const calls: unknown[] = [];
  const unregister = registerBuiltinExecutor('list_events', async ({ input }) => {
    calls.push(input);
    return { events: [] };
  });
  t.teardown(unregister);
  await setTools(t, auth, [{ toolName: 'list_events', permissionStatus: level, providerKey: 'calendar' }]);
  return calls;
}

const refusals: [string, unknown, string][] = [
  ['a required field missing', { from: '2026-01-05' }, 'to: Required'],
  ['a field the schema does not declare', { from: '2026-01-05', to: '2026-01-06', calendar: 'all' }, 'calendar: Unrecognized key'],
  ['a field of the wrong type', { from: 5, to: '2026-01-06' }, 'from: must be string'],
  ['a field over its length', { from: 'x'.repeat(65), to: '2026-01-06' }, 'from: must NOT have more than 64 characters'],
];

for (const [what, input, problem] of refusals)
  test.serial(
    `a built-in tool's input with ${what} ends output-error naming it; the executor never runs and no approval is asked`,
    async (t) => {
      const auth = await bearer(t);
      const calls = await withListEvents(t, auth, 'needs_approval');
      const peer = await provider(t, callThenText('list_events', input));
      const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
      const { message, chunks } = await sendChat(base, auth, `refused-${what.replace(/\W/g, '-')}`, [userMessage('what is on monday')]);
      const errorText = `Invalid input for tool list_events: ${problem}`;
      t.like(toolParts(message)[0], { state: 'output-error', errorText });
      t.deepEqual(calls, []);
      t.false(chunks.some((chunk) => chunk.type === 'tool-approval-request'));
      // The model reads the refusal and goes on.
      t.is(peer.requests.length, 2);
      t.true(JSON.stringify(peer.requests[1]!.body.messages.at(-1)).includes(JSON.stringify(errorText).slice(1, -1)));
      t.is(textOf(message), 'All done.');
    },
  );

test.serial('a refused input is stored with its reason: the conversation read back says what the stream said', async (t) => {
  const auth = await bearer(t);
  await withListEvents(t, auth, 'always_allow');
  const peer = await provider(t, callThenText('list_events', { from: '2026-01-05' }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  await sendChat(base, auth, 'stored-refusal', [userMessage('what is on monday')]);
  const stored = await t.context.t
    .http()
    .get(`/api/ai/agents/${agentId}/conversations/stored-refusal`)
    .set('authorization', auth)
    .expect(200);
  const parts = toolParts((stored.body.messages as UIMessage[]).at(-1));
  t.like(parts[0], { state: 'output-error', errorText: 'Invalid input for tool list_events: to: Required' });
  // A refusal is the model's mistake, not the turn's failure: nothing is logged as one.
  t.notRegex(t.context.t.logs.text(), /chat turn failed/);
});

test.serial('an input the schema allows reaches the executor as the model sent it', async (t) => {
  const auth = await bearer(t);
  const calls = await withListEvents(t, auth, 'always_allow');
  const peer = await provider(t, callThenText('list_events', { from: '2026-01-05', to: '2026-01-06' }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const { message } = await sendChat(base, auth, 'allowed', [userMessage('what is on monday')]);
  t.deepEqual(calls, [{ from: '2026-01-05', to: '2026-01-06' }]);
  t.like(toolParts(message)[0], { state: 'output-available', output: { events: [] } });
});

test.serial("an MCP tool's input is not checked by the service: its server receives what the model sent and answers for it", async (t) => {
  const auth = await bearer(t);
  const mcp = await mcpPeer(t);
  const serverId = await addMcpServer(t, auth, mcp.url);
  await setTools(t, auth, [{ toolName: 'search_docs', permissionStatus: 'always_allow', providerKey: `mcp:${serverId}` }]);
  // search_docs lists `query` as required; the call leaves it out.
  const peer = await provider(t, callThenText('search_docs', { topic: 'limits' }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const { message } = await sendChat(base, auth, 'mcp-unchecked', [userMessage('search the docs')]);
  t.deepEqual(
    mcp.calls.map((call) => call.arguments),
    [{ topic: 'limits' }],
  );
  t.like(toolParts(message)[0], { state: 'output-available' });
  t.is(await t.context.t.db.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM tool_approvals`), 0);
});
