/**
 * The AI SDK's UI message stream as the widget reads it: server-sent events of JSON chunks
 * (`data: {...}`, ending `data: [DONE]`), each a `UIMessageChunk` (the SDK's type, imported as a
 * type only: no byte of the SDK is in widget.js), applied to the assistant message as the SDK's
 * `readUIMessageStream` does: the message is the one the SDK would build from the same bytes
 * (test/channel/widget-stream.test.ts feeds recorded streams through both). What the service
 * sends is text, steps, tool calls and their approvals, data parts, `finish` and `error`;
 * reasoning is not sent to clients, and a tool's input is shown once it is complete.
 */
import type { UIMessageChunk } from 'ai';

export type Part = {
  type: string;
  id?: string;
  text?: string;
  state?: string;
  toolCallId?: string;
  input?: unknown;
  rawInput?: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean; reason?: string };
  data?: unknown;
};

export type Message = { id: string; role: 'user' | 'assistant'; parts: Part[]; metadata?: unknown };

/** Reads `response`'s events and gives each chunk to `onChunk`, in order. */
export async function readChunks(response: Response, onChunk: (chunk: UIMessageChunk) => void): Promise<void> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value;
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data === '[DONE]') return;
      if (data) onChunk(JSON.parse(data) as UIMessageChunk);
    }
  }
}

/**
 * Applies the chunks of one answer to `message` (a new assistant message, or the one a turn goes
 * on in: an answered approval, a staff answer's continuation). Text parts are found by the
 * chunk's `id` within the step, tool parts by `toolCallId` across the message.
 */
export class MessageBuilder {
  readonly #texts = new Map<string, Part>();
  finishReason = '';
  errorText = '';

  readonly message: Message;

  constructor(message: Message) {
    this.message = message;
  }

  /** The tool part of `toolCallId`, made (`tool-<name>`) when the call is new; then its state and fields as the SDK sets them. */
  #tool(toolCallId: string, toolName: string, change: Partial<Part>): void {
    let part = this.message.parts.find((candidate) => candidate.toolCallId === toolCallId);
    if (!part) this.message.parts.push((part = { type: `tool-${toolName}`, toolCallId }));
    Object.assign(part, change);
  }

  #metadata(metadata: unknown): void {
    if (metadata != null) this.message.metadata = { ...(this.message.metadata as object), ...(metadata as object) };
  }

  apply(chunk: UIMessageChunk): void {
    const { parts } = this.message;
    const found = 'toolCallId' in chunk ? parts.find((part) => part.toolCallId === chunk.toolCallId) : undefined;
    switch (chunk.type) {
      case 'start':
        if (chunk.messageId != null) this.message.id = chunk.messageId;
        this.#metadata(chunk.messageMetadata);
        break;
      case 'start-step':
        parts.push({ type: 'step-start' });
        break;
      case 'finish-step':
        this.#texts.clear();
        break;
      case 'text-start': {
        const part: Part = { type: 'text', text: '', state: 'streaming' };
        this.#texts.set(chunk.id, part);
        parts.push(part);
        break;
      }
      case 'text-delta': {
        const part = this.#texts.get(chunk.id);
        if (part) part.text += chunk.delta;
        break;
      }
      case 'text-end': {
        const part = this.#texts.get(chunk.id);
        if (part) part.state = 'done';
        this.#texts.delete(chunk.id);
        break;
      }
      case 'tool-input-start':
        this.#tool(chunk.toolCallId, chunk.toolName, { state: 'input-streaming', input: undefined });
        break;
      case 'tool-input-available':
        this.#tool(chunk.toolCallId, chunk.toolName, { state: 'input-available', input: chunk.input, rawInput: undefined });
        break;
      case 'tool-input-error':
        this.#tool(chunk.toolCallId, chunk.toolName, {
          state: 'output-error',
          input: undefined,
          rawInput: chunk.input,
          errorText: chunk.errorText,
        });
        break;
      case 'tool-approval-request':
        if (found) Object.assign(found, { state: 'approval-requested', approval: { id: chunk.approvalId } });
        break;
      case 'tool-output-available':
        if (found) Object.assign(found, { state: 'output-available', output: chunk.output, rawInput: undefined, errorText: undefined });
        break;
      case 'tool-output-error':
        if (found) Object.assign(found, { state: 'output-error', output: undefined, errorText: chunk.errorText });
        break;
      case 'tool-output-denied':
        if (found) found.state = 'output-denied';
        break;
      case 'message-metadata':
        this.#metadata(chunk.messageMetadata);
        break;
      case 'finish':
        this.finishReason = chunk.finishReason ?? 'stop';
        this.#metadata(chunk.messageMetadata);
        break;
      case 'error':
        this.errorText = chunk.errorText || 'The answer failed.';
        break;
      default:
        // A data part with an id is replaced by the next of the same type and id; a transient one is not kept.
        if (chunk.type.startsWith('data-') && !('transient' in chunk && chunk.transient)) {
          const data = chunk as Part;
          const same = data.id == null ? undefined : parts.find((part) => part.type === data.type && part.id === data.id);
          if (same) same.data = data.data;
          else parts.push({ ...data });
        }
    }
  }
}

/** A random id (no secure context needed, unlike `crypto.randomUUID`). */
export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
