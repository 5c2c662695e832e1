import type { UIMessage, UIMessageChunk } from 'ai';
import { TurnEnd } from './running-turns.ts';

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
