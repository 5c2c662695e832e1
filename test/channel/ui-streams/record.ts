/**
 * Records the UI message streams that test/channel/widget-stream.test.ts feeds through the widget's
 * reader and the AI SDK's: real turns of the chat route (the same turn the public route runs),
 * against a scripted model, written byte for byte into this folder with `cases.json` (each case's
 * stream and the message it goes on in). Run again after a change of what the service streams:
 *
 *   node --conditions=agents-source test/channel/ui-streams/record.ts   (PostgreSQL on 127.0.0.1:5432)
 */
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import type { UIMessage } from 'ai';
import { createApp } from '../../../app/app.ts';
import { AGENTS, DEMO_PASSWORD } from '../../../seeds/demo-fixtures.ts';
import { seedDemo } from '../../../seeds/demo.ts';
import { seedDemoKnowledge } from '../../../seeds/demo-knowledge.ts';
import { testConfig } from '../../helpers/config.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { startOpenAiPeer, type ChatRequest, type Reply } from '../../helpers/openai-peer.ts';
import { answered } from '../../chat/support.ts';
import { sdkRead, type RecordedCase } from './sdk-reader.ts';

const HERE = new URL('./', import.meta.url);
const ANSWER = 'Refunds are paid back within 5 to 7 business days.';

/** What the scripted model answers: by the marker in the user's message, and text once a tool has answered. */
function script(request: ChatRequest): Reply {
  const last = request.messages.at(-1)!;
  if (last.role === 'tool') return { kind: 'text', text: ANSWER, pieces: 4 };
  const said = JSON.stringify(last.content);
  if (said.includes('[tool]')) return { kind: 'tool-call', toolName: 'search_knowledge_base', input: { query: 'refunds' } };
  if (said.includes('[approval]')) return { kind: 'tool-call', toolName: 'list_documents', input: { limit: 2 } };
  if (said.includes('[errors]'))
    return {
      kind: 'tool-call',
      toolName: 'search_knowledge_base',
      input: { query: 42 },
      id: 'call_bad_input',
      alongside: [{ toolName: 'list_documents', input: { cursor: 'not-a-cursor' }, id: 'call_failing' }],
    };
  if (said.includes('[failure]')) return { kind: 'disconnect' };
  if (said.includes('[resume]')) return { kind: 'drip', text: ANSWER, everyMs: 20 };
  return { kind: 'text', text: ANSWER, pieces: 5 };
}

const db = await createTestDatabase();
const peer = await startOpenAiPeer(script);
try {
  await seedDemo(db.pool);
  const base = testConfig({ nodeEnv: 'development' });
  const config = { ...base, ai: { ...base.ai, gatewayApiKey: 'sk-recorder-platform-key', gatewayUrl: peer.url, maxSteps: 8 } };
  const app = createApp({ db: db.pool, config, logger: pino({ level: 'silent' }), rateLimits: false });
  await seedDemoKnowledge(app.deps);
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = `${origin}/api/ai/agents/${AGENTS.support.id}`;
  const login = await fetch(`${origin}/api/identity/auth/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'owner@demo.test', password: DEMO_PASSWORD }),
  });
  const headers = {
    authorization: `Bearer ${((await login.json()) as { accessToken: string }).accessToken}`,
    'content-type': 'application/json',
  };
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${agent}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response;
  };
  const permit = (toolName: string, permissionStatus: string) =>
    call('PUT', '/tools', {
      tools: [
        { toolName, permissionStatus, providerKey: 'knowledge' },
        {
          toolName: toolName === 'list_documents' ? 'search_knowledge_base' : 'list_documents',
          permissionStatus: 'always_allow',
          providerKey: 'knowledge',
        },
      ],
    });

  const cases: RecordedCase[] = [];
  const empty = (): UIMessage => ({ id: 'answer', role: 'assistant', parts: [] });
  /** One turn: `message` sent in conversation `chat`; its stream saved as `name`. */
  const turn = async (name: string, chat: string, message: UIMessage, start = empty()) => {
    const stream = await (await call('POST', '/chat', { id: chat, messages: [message], trigger: 'submit-message' })).text();
    await writeFile(new URL(`${name}.sse`, HERE), stream);
    cases.push({ name, stream: `${name}.sse`, start });
    return (await sdkRead(stream, start)).message;
  };
  const user = (text: string): UIMessage => ({ id: `user-${text.length}`, role: 'user', parts: [{ type: 'text', text }] });
  await turn('text', 'recorded-text', user('How long do refunds take?'));
  await permit('search_knowledge_base', 'always_allow');
  await turn('tool-call', 'recorded-tool', user('[tool] How long do refunds take?'));
  await permit('list_documents', 'needs_approval');
  const asked = await turn('approval-request', 'recorded-approval', user('[approval] Which documents are there?'));
  const approved = answered(asked, true);
  await turn('approval-approved', 'recorded-approval', approved, approved);
  const askedAgain = await turn('approval-request-2', 'recorded-denial', user('[approval] Which documents are there?'));
  const denied = answered(askedAgain, false, 'Not now');
  await turn('approval-denied', 'recorded-denial', denied, denied);
  await permit('list_documents', 'always_allow');
  await turn('tool-errors', 'recorded-errors', user('[errors] Search badly'));
  await turn('provider-failure', 'recorded-failure', user('[failure] Fail midway'));
  await call('PATCH', '', { guardrails: { blockedTerms: ['forbidden'], moderationModel: null, refusal: 'I cannot help with that.' } });
  await turn('guardrail-refusal', 'recorded-refusal', user('Tell me something forbidden'));
  await call('PATCH', '', { guardrails: { blockedTerms: [], moderationModel: null, refusal: 'I cannot help with that.' } });
  // A turn followed from elsewhere (a reload, another tab): the resume GET while it runs replays it whole.
  const running = call('POST', '/chat', { id: 'recorded-resume', messages: [user('[resume] Slowly, please')], trigger: 'submit-message' });
  const first = await running;
  const resumed = await fetch(`${agent}/chat/recorded-resume/stream`, { headers });
  const [, stream] = await Promise.all([first.text(), resumed.text()]);
  await writeFile(new URL('resume.sse', HERE), stream);
  cases.push({ name: 'resume', stream: 'resume.sse', start: empty() });

  await writeFile(new URL('cases.json', HERE), `${JSON.stringify(cases, null, 2)}\n`);
  process.stdout.write(`recorded ${cases.length} streams into ${HERE.pathname}\n`);
  server.closeAllConnections();
  server.close();
} finally {
  await peer.close();
  await db.drop();
}
