import anyTest from 'ava';
import type { UIMessage } from 'ai';
import { uuidv7 } from 'uuidv7';
import { estimateTokens } from '../../app/metering/tokens.ts';
import { MAX_TOOL_RESULT_CHARS } from '../../app/chat/tool-map.ts';
import { registerBuiltinExecutor } from '../../app/tools/deployment-executors.ts';
import { insertDocument, vectorStore } from '../../sql/knowledge.ts';
import { ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import type { ChatRequest, Reply } from '../helpers/openai-peer.ts';
import { agentId, bearer, chatConfig, provider, sendChat, serve, setTools, textOf, userMessage, type T } from './support.ts';

const test = withTestApp(anyTest, { app: { config: chatConfig() } });

type ToolPart = { type: string; state: string; toolCallId: string; input?: unknown; output?: unknown; errorText?: string };
const toolParts = (message: UIMessage | undefined) =>
  (message?.parts ?? []).filter((part) => 'toolCallId' in part) as unknown as ToolPart[];

/** The content of the last tool message a model call was sent (what the model reads of the last result). */
const lastToolContent = (request: ChatRequest) => String(request.messages.findLast((message) => message.role === 'tool')!.content);

/** `list_events` answering `result`, in the agent's set without approval. */
async function listEventsAnswering(t: T, auth: string, result: unknown) {
  t.teardown(registerBuiltinExecutor('list_events', async () => result));
  await setTools(t, auth, [{ toolName: 'list_events', permissionStatus: 'always_allow', providerKey: 'calendar' }]);
}

const callListEvents = (_: unknown, index: number): Reply =>
  index === 0
    ? { kind: 'tool-call', toolName: 'list_events', input: { from: '2026-01-05', to: '2026-01-06' } }
    : { kind: 'text', text: 'Done.' };

const prose = (characters: number) =>
  'The refund is issued to the original payment method within five business days. '.repeat(Math.ceil(characters / 81)).slice(0, characters);

test.serial(
  "a built-in tool's result over 64 KiB is cut there, saying so: in the stream, the store and what the model reads",
  async (t) => {
    const auth = await bearer(t);
    await listEventsAnswering(t, auth, { events: [{ title: 'Offsite', notes: prose(200_000) }] });
    const peer = await provider(t, callListEvents);
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    const { message } = await sendChat(base, auth, 'huge-result', [userMessage('what is on monday')]);
    const output = toolParts(message)[0]!.output as string;
    t.is(typeof output, 'string');
    t.is(output.length, MAX_TOOL_RESULT_CHARS + ` [result cut at ${MAX_TOOL_RESULT_CHARS} characters]`.length);
    t.true(output.startsWith('{"events":[{"title":"Offsite","notes":"The refund is issued'));
    t.true(output.endsWith(` [result cut at ${MAX_TOOL_RESULT_CHARS} characters]`));
    t.true(lastToolContent(peer.requests[1]!.body).endsWith(`[result cut at ${MAX_TOOL_RESULT_CHARS} characters]`));
    const stored = await t.context.t
      .http()
      .get(`/api/ai/agents/${agentId}/conversations/huge-result`)
      .set('authorization', auth)
      .expect(200);
    t.is(toolParts((stored.body.messages as UIMessage[]).at(-1))[0]!.output, output);
  },
);

test.serial('a result under 64 KiB stays as the tool answered it', async (t) => {
  const auth = await bearer(t);
  const result = { events: [{ title: 'Offsite', notes: prose(60_000) }] };
  await listEventsAnswering(t, auth, result);
  const peer = await provider(t, callListEvents);
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const { message } = await sendChat(base, auth, 'fitting-result', [userMessage('what is on monday')]);
  t.deepEqual(toolParts(message)[0]!.output, result);
});

test.serial(
  'a result over a quarter of AI_CONTEXT_MAX_TOKENS is cut to it in what the model is sent, on every later step; the store keeps it whole',
  async (t) => {
    const auth = await bearer(t);
    const result = { events: [{ title: 'Offsite', notes: prose(40_000) }] };
    await listEventsAnswering(t, auth, result);
    // Two steps after the call: the result is sent twice, cut both times.
    const peer = await provider(t, (_, index) =>
      index === 0
        ? { kind: 'tool-call', toolName: 'list_events', input: { from: '2026-01-05', to: '2026-01-06' } }
        : index === 1
          ? { kind: 'tool-call', toolName: 'list_events', input: { from: '2026-01-06', to: '2026-01-07' }, id: 'call_2' }
          : { kind: 'text', text: 'Done.' },
    );
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url, contextMaxTokens: 4000 }));
    const { message } = await sendChat(base, auth, 'share', [userMessage('what is on monday')]);
    t.is(textOf(message), 'Done.');
    t.is(peer.requests.length, 3);
    for (const request of peer.requests.slice(1)) {
      const tools = request.body.messages.filter((sent) => sent.role === 'tool').map((sent) => String(sent.content));
      t.true(tools.length >= 1);
      for (const content of tools) {
        t.regex(
          content,
          /^\{"events":\[\{"title":"Offsite","notes":"The refund is issued.* \[cut to fit the context window: about 1000 of \d+ tokens\]$/,
        );
        t.true(estimateTokens(content) <= 1000, `${estimateTokens(content)} tokens`);
      }
    }
    const stored = await t.context.t.http().get(`/api/ai/agents/${agentId}/conversations/share`).set('authorization', auth).expect(200);
    t.deepEqual(toolParts((stored.body.messages as UIMessage[]).at(-1))[0]!.output, result);
  },
);

type DocumentsPage = { documents: { name: string }[]; nextCursor: string | null; note?: string };

test.serial('list_documents answers a page at a time: 134 documents in pages of 50, 50 and 34, each once, oldest first', async (t) => {
  const auth = await bearer(t);
  const vectors = await vectorStore(t.context.t.db.pool);
  const names = Array.from(
    { length: 134 },
    (_, i) => `Help center article ${String(i).padStart(3, '0')}: refunds, returns and exchanges.md`,
  );
  const start = Date.parse('2026-01-01T00:00:00Z');
  for (const [index, name] of names.entries())
    await insertDocument(
      t.context.t.db.pool,
      {
        id: uuidv7(),
        organizationId: ORGANIZATIONS.demoAgency.id,
        agentId,
        name,
        contentType: 'text/markdown',
        bytes: 1000 + index,
        textBytes: 100,
        // Two documents share each instant: the cursor orders them by id too.
        createdAt: new Date(start + Math.floor(index / 2) * 1000),
      },
      [{ heading: '', body: `Article ${index}` }],
      vectors,
    );
  await setTools(t, auth, [{ toolName: 'list_documents', permissionStatus: 'always_allow', providerKey: 'knowledge' }]);
  const pages: DocumentsPage[] = [];
  const peer = await provider(t, (request, index) => {
    if (index > 0) pages.push(JSON.parse(lastToolContent(request)) as DocumentsPage);
    const cursor = pages.at(-1)?.nextCursor;
    if (index > 0 && !cursor) return { kind: 'text', text: 'That is all of them.' };
    return { kind: 'tool-call', toolName: 'list_documents', input: cursor ? { cursor } : {}, id: `call_${index}` };
  });
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const { message } = await sendChat(base, auth, 'documents', [userMessage('which documents do you have?')]);
  t.is(textOf(message), 'That is all of them.');
  t.deepEqual(
    pages.map((page) => page.documents.length),
    [50, 50, 34],
  );
  t.deepEqual(
    pages.flatMap((page) => page.documents.map((document) => document.name)),
    names,
  );
  t.deepEqual(
    pages.map((page) => page.nextCursor === null),
    [false, false, true],
  );
  t.regex(pages[0]!.note!, /call list_documents again with this nextCursor/);
  for (const part of toolParts(message)) t.true(JSON.stringify(part.output).length < 20_000);

  // A cursor the model made up is refused with a reason; `limit` asks for up to 100.
  const other = await provider(t, (_, index) =>
    index === 0
      ? { kind: 'tool-call', toolName: 'list_documents', input: { cursor: 'page-2' } }
      : index === 1
        ? { kind: 'tool-call', toolName: 'list_documents', input: { limit: 100 }, id: 'call_2' }
        : { kind: 'text', text: 'ok' },
  );
  const otherBase = await serve(t, chatConfig({ gatewayUrl: other.url }));
  const second = await sendChat(otherBase, auth, 'documents-cursor', [userMessage('which documents do you have?')]);
  const [made, hundred] = toolParts(second.message);
  t.like(made, {
    state: 'output-error',
    errorText: 'list_documents: this cursor is not a nextCursor list_documents gave; leave it out to start from the first document',
  });
  t.is((hundred!.output as DocumentsPage).documents.length, 100);
});
