import {
  convertToModelMessages,
  createUIMessageStream,
  stepCountIs,
  streamText,
  type ToolSet,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { uuidv7 } from 'uuidv7';
import { insertUsageEvents } from '../../sql/usage-events.ts';
import { afterUsageWritten } from '../analytics/budget/checker.ts';
import { messageWrites, type StoredMessage } from '../../sql/chat-conversations.ts';
import type { Agent } from '../../sql/agents.ts';
import type { AppDeps } from '../core/deps.ts';
import { requestToolApproval } from '../tools/approvals.ts';
import type { ChatModel } from './provider.ts';
import { fitEveryCall } from './context-window.ts';
import { callSettingsOf, systemMessageOf } from './model-call.ts';
import { describeFailure, ToolFailure, TurnNotSaved } from './stream-errors.ts';
import { endingChunk, settleStopped } from './turn-ending.ts';

export type Turn = {
  deps: AppDeps;
  organizationId: string;
  userId: string;
  agent: Agent;
  /** Resolves once the request's own writes are committed (`PreparedTurn`); awaited before the turn writes. */
  conversationId: Promise<string>;
  /** The stored history, ending with the new user message or the answered assistant message. */
  history: StoredMessage[];
  model: ChatModel;
  tools: ToolSet;
  /** Aborted by stop, the turn's deadline or shutdown (never by the client going away): ends the provider request and the tool call in flight. */
  signal: AbortSignal;
};

/**
 * One turn as an AI SDK UI message stream: `streamText` over the stored history with the turn's
 * tool map, at most `AI_MAX_STEPS` model calls. Approved answers in the history run their stored
 * call first and denied ones tell the model (the SDK's approval flow). Each
 * `tool-approval-request` is stored as a pending approval before the client sees it. The
 * `finish` chunk is held back until the assistant message and the turn's usage events are
 * written together (one statement); if that fails the stream ends with an `error` chunk instead.
 */
export async function streamTurn(turn: Turn): Promise<ReadableStream<UIMessageChunk>> {
  const { deps, model } = turn;
  const history = turn.history as UIMessage[];
  const messages = await convertToModelMessages(history, { tools: turn.tools, ignoreIncompleteToolCalls: true });
  const startedAt = deps.clock();
  let conversationId: string | undefined;
  turn.conversationId.then(
    (id) => (conversationId = id),
    () => {},
  );
  const describe = (error: unknown) => {
    const text = describeFailure(error, model.failures);
    if (error instanceof ToolFailure) return text;
    deps.logger.warn({ agentId: turn.agent.id, conversationId, cause: text }, 'chat turn failed');
    return text;
  };
  return createUIMessageStream({
    onError: describe,
    execute: async ({ writer }) => {
      let answer: UIMessage | undefined;
      let finish: UIMessageChunk | undefined;
      const inputs = new Map<string, { toolName: string; input: unknown }>();
      try {
        const toolCount = Object.keys(turn.tools).length;
        const system = systemMessageOf(turn.agent, toolCount > 0);
        const result = streamText({
          model: model.model,
          system,
          messages,
          ...callSettingsOf(turn.agent),
          prepareStep: fitEveryCall({ maxTokens: deps.config.ai.contextMaxTokens, system, toolCount }),
          tools: turn.tools,
          stopWhen: stepCountIs(deps.config.ai.maxSteps),
          maxRetries: 0,
          abortSignal: turn.signal,
          // Errors reach the client as `error` chunks (describeFailure); the default would print them.
          onError: () => {},
          _internal: { generateId: uuidv7 },
        });
        const chunks = result.toUIMessageStream({
          originalMessages: history,
          generateMessageId: uuidv7,
          sendReasoning: false,
          onError: describe,
          onFinish: ({ responseMessage }) => {
            answer = responseMessage;
          },
        });
        for await (const chunk of chunks) {
          if (chunk.type === 'tool-input-available') inputs.set(chunk.toolCallId, { toolName: chunk.toolName, input: chunk.input });
          if (chunk.type === 'tool-approval-request') {
            const call = inputs.get(chunk.toolCallId);
            await requestToolApproval(deps.db, {
              id: chunk.approvalId,
              userId: turn.userId,
              agentId: turn.agent.id,
              conversationId: await turn.conversationId,
              toolName: call?.toolName ?? 'unknown',
              toolCallId: chunk.toolCallId,
              input: call?.input ?? {},
            });
          }
          if (chunk.type === 'finish') finish = chunk;
          // A stopped turn ends with `finish` or, past its deadline, `error` (endingChunk), never the SDK's `abort`.
          else if (chunk.type !== 'abort') writer.write(chunk);
        }
        const stopped = settleStopped(answer, turn.signal);
        await saveTurn(turn, stopped.answer, startedAt);
        for (const chunk of stopped.chunks) writer.write(chunk);
        const ending = endingChunk(turn.signal, finish);
        if (ending) writer.write(ending);
        // Budgets are checked after every usage write (it logs rather than throws; the minute sweep retries).
        if (model.calls.length > 0) await afterUsageWritten(turn.deps, turn.organizationId);
      } finally {
        await model.close();
      }
    },
  });
}

/** The assistant message and one usage event per model call, together (the single write of chat usage). */
async function saveTurn(turn: Turn, answer: UIMessage | undefined, startedAt: Date): Promise<void> {
  const { deps, model } = turn;
  const now = deps.clock();
  let conversationId: string | undefined;
  try {
    const written = await turn.conversationId;
    conversationId = written;
    const answerWrites =
      answer && answer.parts.length > 0
        ? messageWrites(written, { id: answer.id, role: 'assistant', parts: answer.parts as StoredMessage['parts'] }, now)
        : undefined;
    // One statement: the answer and the usage commit together without BEGIN and COMMIT round trips.
    await insertUsageEvents(
      deps.db,
      model.calls.map((call) => ({
        id: uuidv7(),
        organizationId: turn.organizationId,
        agentId: turn.agent.id,
        userId: turn.userId,
        modelId: model.modelId,
        actionType: 'user_interaction',
        source: model.source,
        inputTokens: call.inputTokens,
        cacheReadTokens: call.cacheReadTokens,
        outputTokens: call.outputTokens,
        costUsd: null,
        latencyMs: call.latencyMs,
        createdAt: call.finishedAt.getTime() < startedAt.getTime() ? startedAt : call.finishedAt,
      })),
      answerWrites,
    );
  } catch (error) {
    deps.logger.error({ conversationId, err: error instanceof Error ? error.message : String(error) }, 'chat turn not saved');
    throw new TurnNotSaved('the turn could not be saved');
  }
}
