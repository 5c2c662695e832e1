import type { AddressInfo } from 'node:net';
import type { ExecutionContext } from 'ava';
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import type { Config } from '../../app/config.ts';
import type { CreateAppOptions } from '../../app/app.ts';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { testConfig, type TestContext } from '../helpers/app.ts';
import { startMcpToolPeer, type McpToolPeer, type ToolAnswer } from '../helpers/mcp-tool-peer.ts';
import { startOpenAiPeer, type ChatRequest, type OpenAiPeer, type Reply } from '../helpers/openai-peer.ts';

export type T = ExecutionContext<TestContext>;
export const agentId = AGENTS.support.id;
export const chatPath = (agent = agentId) => `/api/ai/agents/${agent}/chat`;

/** Development mode (loopback MCP peers allowed) with the platform provider at `peer`. */
export function chatConfig(ai: Partial<Config['ai']> = {}, base: Partial<Config> = {}): Config {
  const config = testConfig({ nodeEnv: 'development', ...base });
  return { ...config, ai: { ...config.ai, gatewayApiKey: 'sk-platform-secret-key-0001', maxSteps: 8, ...ai } };
}

/** An app over the file's database with `config`, listening on loopback (closed after the test). */
export async function serve(t: T, config: Config, options: Partial<CreateAppOptions> = {}): Promise<string> {
  const server = t.context.t.rebuild({ ...options, config }).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function provider(
  t: T,
  script: (request: ChatRequest, index: number) => Reply | Promise<Reply>,
  options: { titles?: 'answer' | 'script' } = {},
): Promise<OpenAiPeer> {
  const peer = await startOpenAiPeer(script, options);
  t.teardown(() => peer.close());
  return peer;
}

export async function mcpPeer(t: T, answer?: ToolAnswer): Promise<McpToolPeer> {
  const peer = await startMcpToolPeer(answer ? { answer } : {});
  t.teardown(() => peer.close());
  return peer;
}

export const bearer = async (t: T, email = 'owner@demo.test') => `Bearer ${await t.context.t.login(email)}`;

export type ChatResult = { chunks: UIMessageChunk[]; message: UIMessage | undefined };

/**
 * One turn through the AI SDK's own client code: `DefaultChatTransport` posts, and
 * `readUIMessageStream` assembles the answer (continuing `messages`' last assistant message, as
 * `useChat` does after an approval).
 */
export async function sendChat(
  base: string,
  auth: string,
  chatId: string,
  messages: UIMessage[],
  options: { agent?: string; abortSignal?: AbortSignal; trigger?: 'submit-message' | 'regenerate-message' } = {},
): Promise<ChatResult> {
  const transport = new DefaultChatTransport<UIMessage>({ api: `${base}${chatPath(options.agent)}`, headers: { authorization: auth } });
  const stream = await transport.sendMessages({
    chatId,
    messages,
    trigger: options.trigger ?? 'submit-message',
    messageId: undefined,
    abortSignal: options.abortSignal,
  });
  const [forChunks, forMessage] = stream.tee();
  const chunks: UIMessageChunk[] = [];
  const collecting = (async () => {
    for await (const chunk of forChunks) chunks.push(chunk);
  })();
  const last = messages.at(-1);
  let message: UIMessage | undefined;
  for await (const state of readUIMessageStream<UIMessage>({
    stream: forMessage,
    ...(last?.role === 'assistant' ? { message: structuredClone(last) } : {}),
    terminateOnError: false,
  })) {
    message = state;
  }
  await collecting;
  return { chunks, message };
}

export const userMessage = (text: string, id = `u-${text.length}-${text.slice(0, 8).replace(/\W/g, '')}`): UIMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
});

export const textOf = (message: UIMessage | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');

/** The message with every tool part waiting for approval answered, as `addToolApprovalResponse` leaves it. */
export function answered(message: UIMessage, approved: boolean, reason?: string): UIMessage {
  return {
    ...message,
    parts: message.parts.map((part) => {
      const candidate = part as { state?: string; approval?: { id: string } };
      if (candidate.state !== 'approval-requested' || !candidate.approval) return part;
      return {
        ...part,
        state: 'approval-responded',
        approval: { id: candidate.approval.id, approved, ...(reason === undefined ? {} : { reason }) },
      } as typeof part;
    }),
  };
}

/** Sets the agent's tool permissions. */
export async function setTools(t: T, auth: string, tools: { toolName: string; permissionStatus: string; providerKey: string }[]) {
  await t.context.t.http().put(`/api/ai/agents/${agentId}/tools`).set('authorization', auth).send({ tools }).expect(200);
}

/** Adds an MCP server (no auth) to the agent and returns its id. */
export async function addMcpServer(t: T, auth: string, url: string): Promise<string> {
  const response = await t.context.t
    .http()
    .post(`/api/ai/agents/${agentId}/mcp-servers`)
    .set('authorization', auth)
    .send({ name: 'Chat peer', transportType: 'http', url })
    .expect(201);
  return response.body.id as string;
}
