import { convertToModelMessages, stepCountIs, type StreamTextTransform, type ToolSet, type UIMessage, type UIMessageChunk } from 'ai';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { isEndUserScope, messageWrites, type ConversationScope, type StoredMessage } from '../../sql/chat-conversations.ts';
import type { Agent } from '../../sql/agents.ts';
import { forEndUsers } from '../analytics/budget/errors.ts';
import type { AppDeps } from '../core/deps.ts';
import { callModel, UsageNotRecorded, type LanguageCalls } from '../metering/call.ts';
import type { ChatModel } from '../metering/models.ts';
import { accountOf } from '../metering/record.ts';
import { requestToolApproval } from '../tools/approvals.ts';
import { fitEveryCall } from './context-window.ts';
import { notifyStaff } from './staff/notify.ts';
import { TurnEnd, type TurnEnding } from './running-turns.ts';
import { describeFailure, TurnNotSaved } from './turn-failure.ts';
import { toolFailureText } from './tool-map.ts';
import { uiMessageStream } from './ui-message-stream.ts';

/*
 * One chat turn: the system message and settings of its model calls, the stream that runs them
 * and saves the answer with its usage, and how a stopped turn ends; the words of its `error` chunk
 * are turn-failure.ts's.
 */

/** The service's own note, added after the instructions only when the model is offered tools. */
export const TOOLS_NOTE = "Use the tools you are offered when they help; a tool may need the user's approval before it runs.";

/**
 * The system message of an agent's model calls (docs/chat.md, "The agent's definition"): its
 * `instructions` verbatim, followed by `TOOLS_NOTE` when tools are offered. An agent without
 * instructions gets a short stand-in built from its name and description.
 */
export function systemMessageOf(agent: Pick<Agent, 'name' | 'description' | 'instructions'>, offersTools: boolean): string {
  const note = offersTools ? TOOLS_NOTE : '';
  if (agent.instructions !== '') return note === '' ? agent.instructions : `${agent.instructions}\n\n${note}`;
  const about = agent.description.trim() === '' ? '' : ` ${agent.description.trim()}`;
  return `You are ${agent.name}, an assistant of this organization.${about}${note === '' ? '' : ` ${note}`}`;
}

/**
 * The agent's sampling settings for `streamText`, sent on every model call (Chat Completions
 * `temperature` and `max_tokens`); a null setting is left out, so the provider's default applies.
 */
export function callSettingsOf(agent: Pick<Agent, 'temperature' | 'maxOutputTokens'>): { temperature?: number; maxOutputTokens?: number } {
  return {
    ...(agent.temperature === null ? {} : { temperature: agent.temperature }),
    ...(agent.maxOutputTokens === null ? {} : { maxOutputTokens: agent.maxOutputTokens }),
  };
}

export type Turn = {
  deps: AppDeps;
  /** Whose turn: the organization, the agent and the staff user or end user the conversation belongs to. */
  scope: ConversationScope;
  agent: Agent;
  /** Resolves once the request's own writes are committed (`PreparedTurn`); awaited before the turn writes. */
  conversationId: Promise<string>;
  /** The stored history, ending with the new user message or the answered assistant message. */
  history: StoredMessage[];
  model: ChatModel;
  tools: ToolSet;
  /** Aborted by stop, the turn's deadline or shutdown (never by the client going away): ends the provider request and the tool call in flight. */
  signal: AbortSignal;
  /** A new conversation's title being made (app/chat/titles.ts): sent as `data-conversation-title` if it comes while the stream is open. */
  title?: Promise<string | null>;
  /** Who answers its approvals: the owner in the stream, or the staff (who are told: app/chat/staff/notify.ts). */
  approvals: 'owner' | 'staff';
  /** The turn's end, written in the statement that saves its answer (app/chat/running-turns.ts). */
  ending?: TurnEnding;
};

/**
 * Gives each approval request of the turn a UUIDv7 id (the id of its stored approval, which the
 * approval routes take as a UUID). It runs before the SDK records the step, so the streamed
 * chunk, the stored answer and the next turn's approval response all carry the same id.
 */
const uuidApprovalIds: StreamTextTransform<ToolSet> = () =>
  new TransformStream({
    transform: (part, controller) => controller.enqueue(part.type === 'tool-approval-request' ? { ...part, approvalId: uuidv7() } : part),
  });

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
  // An end user never reads the organization's spend or limit in a refused budget's error.
  const audience = isEndUserScope(turn.scope) ? forEndUsers : (error: unknown) => error;
  const describe = (error: unknown) => {
    const text = describeFailure(audience(error), model.failures);
    if (toolFailureText(error) !== undefined) return text;
    deps.logger.warn({ agentId: turn.agent.id, conversationId, cause: text }, 'chat turn failed');
    return text;
  };
  return uiMessageStream({
    onError: describe,
    execute: async ({ writer }) => {
      let finish: UIMessageChunk | undefined;
      const inputs = new Map<string, { toolName: string; input: unknown }>();
      // The title goes out when it comes, between other chunks, until the turn's ending chunk.
      let open = true;
      void turn.title?.then((title) => {
        if (title !== null && open) writer.write({ type: 'data-conversation-title', data: { title } });
      });
      const toolCount = Object.keys(turn.tools).length;
      const system = systemMessageOf(turn.agent, toolCount > 0);
      const stopped = await saved(turn, startedAt, async (ai) => {
        let answer: UIMessage | undefined;
        const result = ai.streamText({
          system,
          messages,
          ...callSettingsOf(turn.agent),
          prepareStep: fitEveryCall({ maxTokens: deps.config.ai.contextMaxTokens, system, toolCount }),
          tools: turn.tools,
          stopWhen: stepCountIs(deps.config.ai.maxSteps),
          abortSignal: turn.signal,
          // Errors reach the client as `error` chunks (describeFailure); the default would print them.
          onError: () => {},
          // Only a turn with tools can ask for an approval: a turn without any pays no transform stream.
          ...(toolCount > 0 ? { experimental_transform: uuidApprovalIds } : {}),
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
            const conversationId = await turn.conversationId;
            const toolName = call?.toolName ?? 'unknown';
            await requestToolApproval(deps.db, {
              id: chunk.approvalId,
              scope: turn.scope,
              conversationId,
              toolName,
              toolCallId: chunk.toolCallId,
              input: call?.input ?? {},
            });
            if (turn.approvals === 'staff' && isEndUserScope(turn.scope))
              await notifyStaff(deps, { scope: turn.scope, agent: turn.agent, conversationId, toolName });
          }
          if (chunk.type === 'finish') finish = chunk;
          // A stopped turn ends with `finish` or, past its deadline, `error` (endingChunk), never the SDK's `abort`.
          else if (chunk.type !== 'abort') writer.write(chunk);
        }
        return settleStopped(answer, turn.signal);
      });
      for (const chunk of stopped.chunks) writer.write(chunk);
      const ending = endingChunk(turn.signal, finish);
      open = false;
      if (ending) writer.write(ending);
    },
  });
}

/**
 * Runs the turn's model calls (`callModel`) and saves what `run` answers: the assistant message
 * with one usage row per model call, the release of their reservations and the turn's end, in one
 * statement.
 */
async function saved(
  turn: Turn,
  startedAt: Date,
  run: (ai: LanguageCalls) => Promise<ReturnType<typeof settleStopped>>,
): Promise<ReturnType<typeof settleStopped>> {
  const { deps, model } = turn;
  let conversationId: string | undefined;
  try {
    const result = await callModel(
      deps,
      model,
      {
        account: { ...accountOf(turn.scope), actionType: 'user_interaction' },
        notBefore: startedAt,
        // Awaited only now: the request's own writes commit while the turn streams.
        alongside: async (stopped) => {
          conversationId = await turn.conversationId;
          const answer = stopped?.answer;
          const writes = [
            ...(answer && answer.parts.length > 0
              ? [
                  messageWrites(
                    conversationId,
                    { id: answer.id, role: 'assistant', parts: answer.parts as StoredMessage['parts'] },
                    deps.clock(),
                  ),
                ]
              : []),
            ...(turn.ending ? [turn.ending.write()] : []),
          ];
          return writes.length === 0 ? undefined : sql.fragment`${sql.join(writes, sql.fragment`, `)}`;
        },
      },
      run,
    );
    turn.ending?.written();
    return result;
  } catch (error) {
    if (error instanceof UsageNotRecorded) throw notSaved(turn, conversationId, error);
    throw error;
  }
}

function notSaved(turn: Turn, conversationId: string | undefined, error: unknown): TurnNotSaved {
  turn.deps.logger.error({ conversationId, err: error instanceof Error ? error.message : String(error) }, 'chat turn not saved');
  return new TurnNotSaved('the turn could not be saved');
}

/** The text of a tool part that had not finished when its turn was stopped. */
export const STOPPED_TOOL_TEXT = 'The turn was stopped before this tool finished.';

type ToolPart = { type: string; state?: string; toolCallId?: string; input?: unknown; errorText?: string };

const isTool = (part: { type: string }) => part.type.startsWith('tool-') || part.type === 'dynamic-tool';
const UNFINISHED = new Set(['input-streaming', 'input-available', 'approval-responded']);

/**
 * A stopped turn's answer as it is saved (contract: "its tool parts that did not finish end
 * `output-error`"), and the chunks that tell the client so. An answer of a turn that ran to its
 * end is returned as it is.
 */
export function settleStopped(
  answer: UIMessage | undefined,
  signal: AbortSignal,
): { answer: UIMessage | undefined; chunks: UIMessageChunk[] } {
  if (!signal.aborted || !answer) return { answer, chunks: [] };
  const chunks: UIMessageChunk[] = [];
  const parts = answer.parts.map((part) => {
    const tool = part as ToolPart;
    if (!isTool(tool) || !UNFINISHED.has(tool.state ?? '') || typeof tool.toolCallId !== 'string') return part;
    chunks.push({ type: 'tool-output-error', toolCallId: tool.toolCallId, errorText: STOPPED_TOOL_TEXT });
    return { ...part, state: 'output-error', input: tool.input ?? {}, errorText: STOPPED_TOOL_TEXT } as UIMessage['parts'][number];
  });
  return { answer: { ...answer, parts }, chunks };
}

/**
 * The chunk that ends a turn's stream: the model's `finish` for a turn that ran to its end (none
 * when it failed: its `error` chunk was sent); for a stopped turn (stop route, shutdown) a
 * `finish`; past `AI_TURN_TIMEOUT_MS` an `error` chunk saying so.
 */
export function endingChunk(signal: AbortSignal, finish: UIMessageChunk | undefined): UIMessageChunk | undefined {
  if (!signal.aborted) return finish;
  const reason: unknown = signal.reason;
  if (reason instanceof TurnEnd && reason.outcome === 'timed_out') return { type: 'error', errorText: reason.message };
  return { type: 'finish', finishReason: 'stop' };
}
