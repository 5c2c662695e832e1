import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createApp } from '../app/app.ts';
import { MODERATION_PROMPT } from '../app/chat/guardrails.ts';
import { TITLE_PROMPT } from '../app/chat/titles.ts';
import { estimateTokens, MESSAGE_OVERHEAD_TOKENS } from '../app/metering/tokens.ts';
import { testConfig } from '../test/helpers/app.ts';
import { startOpenAiPeer, type ChatRequest, type OpenAiPeer, type Reply } from '../test/helpers/openai-peer.ts';
import type { Harness } from './harness.ts';

/*
 * The web channel's attack cases (fuzz/channel-attacks.ts, fuzz/budget-attacks.ts) run against an
 * app of their own over the fuzzed database, whose model is a scripted provider: a fresh agent of
 * Demo Agency on a website, so that nothing the fuzzed phases changed stands in their way.
 */

export const SHOP = 'https://shop.example.com';

/** What the scripted agent answers; moderation checks and titles are answered apart. */
export type AgentReply = 'text' | 'tool';

export type Answer = { status: number; text: string; json: () => Record<string, unknown> };

export type ChannelLab = {
  origin: string;
  peer: OpenAiPeer;
  /** The agent's own model calls so far (not moderation checks, not titles). */
  agentCalls: () => number;
  /** What the agent answers next; `double`: every call's input reported at twice the service's estimate. */
  script: { reply: AgentReply; double: boolean };
  /** A request as Demo Agency's owner (`staff`), as `token`'s end user (`public`, from the shop's page), or anonymously. */
  call: (
    method: string,
    path: string,
    body?: unknown,
    as?: { staff?: true; token?: string; headers?: Record<string, string> },
  ) => Promise<Answer>;
  /** A new agent of Demo Agency on `modelId`, on a website with `channel` settings; answers its id and publishable key. */
  agent: (name: string, modelId: string, channel?: Record<string, unknown>) => Promise<{ id: string; publishableKey: string }>;
  /** An anonymous end user's session token on the channel of `publishableKey`. */
  session: (publishableKey: string) => Promise<string>;
  close: () => Promise<void>;
};

const isModeration = (request: ChatRequest) => request.messages[0]?.content === MODERATION_PROMPT;
const isTitle = (request: ChatRequest) => request.messages[0]?.content === TITLE_PROMPT;

/** The service's own estimate of a request's input (app/metering/tokens.ts): each message's text and overhead; no tools. */
export const estimateOf = (request: ChatRequest) =>
  request.messages.reduce(
    (sum, message) =>
      sum +
      MESSAGE_OVERHEAD_TOKENS +
      estimateTokens(typeof message.content === 'string' ? message.content : JSON.stringify(message.content)),
    0,
  );

/** The lab: the scripted provider, the app (rate limits `limited` or off) and Demo Agency's owner's token. */
export async function startChannelLab(harness: Harness, ownerToken: string, options: { limited?: boolean } = {}): Promise<ChannelLab> {
  const script = { reply: 'text' as AgentReply, double: false };
  let agentCalls = 0;
  const peer = await startOpenAiPeer(
    (request): Reply => {
      const usage = { prompt: script.double ? 2 * estimateOf(request) : 20, completion: 5 };
      if (isModeration(request))
        return { kind: 'text', text: JSON.stringify(request.messages.at(-1)?.content).includes('hurt') ? 'unsafe' : 'safe', usage };
      if (isTitle(request)) return { kind: 'text', text: 'A fuzzed title', usage };
      agentCalls++;
      const answered = request.messages.some((message) => message.role === 'tool');
      return script.reply === 'tool' && !answered
        ? { kind: 'tool-call', toolName: 'list_documents', input: {}, usage }
        : { kind: 'text', text: 'The agent answered.', usage };
    },
    { titles: 'script' },
  );
  const base = testConfig({ nodeEnv: 'development' });
  const config = { ...base, ai: { ...base.ai, gatewayUrl: peer.url, gatewayApiKey: 'sk-fuzz-platform-key-0002' } };
  const app = createApp({
    db: harness.db.pool,
    config,
    logger: pino({ level: 'silent' }),
    ...(options.limited ? {} : { rateLimits: false }),
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const call: ChannelLab['call'] = async (method, path, body, as = {}) => {
    const headers: Record<string, string> = { ...as.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (as.staff) headers.authorization = `Bearer ${ownerToken}`;
    if (as.token) Object.assign(headers, { authorization: `Bearer ${as.token}`, origin: SHOP });
    const response = await fetch(`${origin}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.text();
    return { status: response.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
  };
  const staff = { staff: true } as const;
  return {
    origin,
    peer,
    agentCalls: () => agentCalls,
    script,
    call,
    async agent(name, modelId, channel = {}) {
      const created = await call('POST', '/api/ai/agents', { name, modelId }, staff);
      if (created.status !== 201) throw new Error(`the lab's agent was not made: ${created.status} ${created.text.slice(0, 200)}`);
      const id = created.json().id as string;
      await call('PUT', `/api/ai/agents/${id}/tools`, { tools: [] }, staff);
      const put = await call('PUT', `/api/ai/agents/${id}/channel`, { enabled: true, allowedOrigins: [SHOP], ...channel }, staff);
      if (put.status !== 200) throw new Error(`the lab's channel was not put: ${put.status} ${put.text.slice(0, 200)}`);
      return { id, publishableKey: put.json().publishableKey as string };
    },
    async session(publishableKey) {
      const opened = await call('POST', '/api/public/sessions', { publishableKey }, { headers: { origin: SHOP } });
      if (opened.status !== 201) throw new Error(`the lab's session was not opened: ${opened.status} ${opened.text.slice(0, 200)}`);
      return opened.json().sessionToken as string;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await peer.close();
    },
  };
}

/** A chat request's body: a new user message, a regenerate of it, or the answer to the conversation's pending approvals. */
export const chatBody = (id: string, text: string, trigger?: 'regenerate-message') => ({
  id,
  messages: [{ id: `m-${id}`, role: 'user', parts: [{ type: 'text', text }] }],
  ...(trigger ? { trigger } : {}),
});
