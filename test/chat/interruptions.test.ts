import anyTest from 'ava';
import type { UIMessageChunk } from 'ai';
import { sql, type QuerySqlToken } from 'slonik';
import { z } from 'zod';
import { withTestApp } from '../helpers/app.ts';
import { backendControl } from '../helpers/backend-control.ts';
import {
  addMcpServer,
  bearer,
  chatConfig,
  chatPath,
  mcpPeer,
  provider,
  sendChat,
  serve,
  setTools,
  userMessage,
  type T,
} from './support.ts';

// Development mode: the MCP peer on 127.0.0.1 passes the outbound URL policy.
const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const KEY = 'sk-platform-secret-key-0001';

const errorText = (chunks: UIMessageChunk[]) => chunks.flatMap((chunk) => (chunk.type === 'error' ? [chunk.errorText] : [])).join(' ');

const Count = z.strictObject({ n: z.number() });
const count = (t: T, query: QuerySqlToken<typeof Count>) => t.context.t.db.pool.oneFirst(query);

async function until(condition: () => boolean, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    // Waiting on an external peer (the MCP server, a tool's handler): polled, bounded by ms.
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test.serial('PostgreSQL lost before the stream starts answers 503 CORE.SERVICE_UNAVAILABLE in the error envelope', async (t) => {
  const peer = await provider(t, () => ({ kind: 'text', text: 'never sent' }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const auth = await bearer(t);
  const db = await backendControl(t);
  await db.query('BEGIN');
  // The turn's first write (the conversation) waits for this lock; its backend is then cut off.
  await db.query('LOCK TABLE chat_conversations IN ACCESS EXCLUSIVE MODE');
  const before = t.context.t.logs.lines.length;
  const pending = fetch(`${base}${chatPath()}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'lost-before', messages: [userMessage('hello')] }),
  });
  await db.terminate(await db.waitingBackend());
  const response = await pending;
  const text = await response.text();
  await db.query('ROLLBACK');

  t.is(response.status, 503);
  t.is(response.headers.get('retry-after'), '1');
  t.regex(response.headers.get('content-type') ?? '', /application\/json/);
  t.deepEqual(JSON.parse(text), {
    statusCode: 503,
    errorCode: 'CORE.SERVICE_UNAVAILABLE',
    message: {
      en: 'The service is temporarily unavailable. Try again in 1 second.',
      es: 'El servicio no está disponible temporalmente. Inténtalo de nuevo en 1 segundo.',
    },
    metadata: { retryAfterSeconds: 1 },
  });
  t.is(peer.requests.length, 0, 'no model call without a stored turn');
  for (const leak of ['INSERT', 'chat_conversations', '    at ']) t.false(text.includes(leak), leak);
  // Logged once for the operator, with the driver's error as cause: never the key or the SQL.
  const logs = t.context.t.logs.lines.slice(before).join('\n');
  t.regex(logs, /terminating connection due to administrator command/);
  for (const leak of [KEY, 'INSERT']) t.false(logs.includes(leak), leak);
  t.is(await count(t, sql.type(Count)`SELECT count(*)::int AS n FROM chat_conversations WHERE client_id = 'lost-before'`), 0);
});

test.serial(
  'PostgreSQL lost after the stream started ends it with an error chunk: no SQL, no stack, no key, nothing half-saved',
  async (t) => {
    const peer = await provider(t, () => ({ kind: 'text', text: 'An answer that is never kept.', usage: { prompt: 12, completion: 6 } }));
    // No title call (an unpriced title model is never called): its usage row would be the first write to wait on the lock.
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url, titleModel: 'unpriced/title-model' }));
    const auth = await bearer(t);
    const usageBefore = await count(t, sql.type(Count)`SELECT count(*)::int AS n FROM usage_events WHERE action_type = 'user_interaction'`);
    const db = await backendControl(t);
    await db.query('BEGIN');
    // Only the turn's closing write (assistant message + usage, one transaction) touches usage_events.
    await db.query('LOCK TABLE usage_events IN ACCESS EXCLUSIVE MODE');
    const before = t.context.t.logs.lines.length;
    const turn = sendChat(base, auth, 'lost-after', [userMessage('hello')]);
    await db.terminate(await db.waitingBackend());
    await db.query('ROLLBACK');
    const { chunks } = await turn;

    // The stream had started (200, text sent) when the write failed.
    t.true(chunks.some((chunk) => chunk.type === 'text-delta'));
    t.false(chunks.some((chunk) => chunk.type === 'finish'));
    const error = errorText(chunks);
    t.regex(error, /could not be saved/);
    const shown = JSON.stringify(chunks);
    for (const leak of [KEY, 'INSERT', 'usage_events', 'terminat', '    at ']) t.false(shown.includes(leak), leak);
    const logs = t.context.t.logs.lines.slice(before).join('\n');
    for (const leak of [KEY, 'INSERT', '    at ', '\\n    at ']) t.false(logs.includes(leak), leak);
    t.regex(logs, /chat turn not saved/);
    // The transaction rolled back: neither the assistant message nor its usage was kept; the user message was.
    t.deepEqual(
      await t.context.t.db.pool.many(sql.type(z.strictObject({ role: z.string() }))`
      SELECT m.role FROM chat_messages m JOIN chat_conversations c ON c.id = m.conversation_id
      WHERE c.client_id = 'lost-after' ORDER BY m.id`),
      [{ role: 'user' }],
    );
    t.is(await count(t, sql.type(Count)`SELECT count(*)::int AS n FROM usage_events WHERE action_type = 'user_interaction'`), usageBefore);
  },
);

test.serial(
  'a client that disconnects leaves the MCP tool call running; stop aborts it (the MCP server sees it cancelled) and saves the part output-error',
  async (t) => {
    const auth = await bearer(t);
    let released = false;
    // The tool blocks until its request is aborted.
    const mcp = await mcpPeer(
      t,
      (_name, _input, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            released = true;
            resolve({ content: [{ type: 'text', text: 'too late' }] });
          });
        }),
    );
    const serverId = await addMcpServer(t, auth, mcp.url);
    await setTools(t, auth, [{ toolName: 'search_docs', permissionStatus: 'always_allow', providerKey: `mcp:${serverId}` }]);
    const peer = await provider(t, () => ({ kind: 'tool-call', toolName: 'search_docs', input: { query: 'slow' } }));
    const base = await serve(
      t,
      chatConfig({ gatewayUrl: peer.url, providerTimeoutMs: 30_000 }, { mcpClient: { ...chatConfig().mcpClient, timeoutMs: 30_000 } }),
    );
    const abort = new AbortController();
    const turn = sendChat(base, auth, 'disconnect-mcp', [userMessage('search slowly')], { abortSignal: abort.signal }).catch(
      () => undefined,
    );
    await until(() => mcp.calls.length === 1, 'the tool call to reach the MCP server');
    abort.abort();
    await turn;
    // The turn still runs: the resume GET follows it (a round trip after the disconnect).
    const resumed = await fetch(`${base}${chatPath()}/disconnect-mcp/stream`, { headers: { authorization: auth } });
    t.is(resumed.status, 200);
    const resumedText = resumed.text();
    t.false(mcp.calls[0]!.aborted, 'a disconnect is not a stop');

    const stop = await fetch(`${base}${chatPath()}/disconnect-mcp/stop`, { method: 'POST', headers: { authorization: auth } });
    t.is(stop.status, 204);
    await until(() => mcp.calls[0]!.aborted, 'the MCP request to be aborted', 5_000);
    t.is(mcp.calls.length, 1);
    t.is(peer.requests.length, 1, 'no further model call after the stop');
    // The SDK server aborted the handler's own signal: the blocked tool was released, not left running.
    await until(() => released, "the tool handler's abort signal", 5_000);
    t.regex(await resumedText, /"type":"tool-output-error"[\s\S]*"type":"finish"/);
    // Saved before the stop answered: the unfinished tool part ends output-error.
    const parts = await t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ parts: z.array(z.record(z.unknown())) }))`
      SELECT m.parts FROM chat_messages m JOIN chat_conversations c ON c.id = m.conversation_id
      WHERE c.client_id = 'disconnect-mcp' AND m.role = 'assistant'`);
    t.like(
      parts.find((part) => part.type === 'tool-search_docs'),
      { state: 'output-error', errorText: 'The turn was stopped before this tool finished.', input: { query: 'slow' } },
    );
  },
);
