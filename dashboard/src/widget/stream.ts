/**
 * The AI SDK's UI message stream as the widget reads it: server-sent events of JSON chunks
 * (`data: {...}`, ending `data: [DONE]`), applied to the assistant message the way the SDK's
 * `processUIMessageStream` does, for the chunks the chat sends (docs/chat.md): text, tool calls
 * and their approvals, data parts, `finish` and `error`. Reasoning is not sent to clients.
 */

export type Part = {
  type: string;
  id?: string;
  text?: string;
  state?: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean; reason?: string };
  data?: unknown;
};

export type Message = { id: string; role: 'user' | 'assistant'; parts: Part[] };

export type Chunk = { type: string; [field: string]: unknown };

/** Reads `response`'s events and gives each chunk to `onChunk`, in order. */
export async function readChunks(response: Response, onChunk: (chunk: Chunk) => void): Promise<void> {
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
      if (data) onChunk(JSON.parse(data) as Chunk);
    }
  }
}

const str = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * Applies the chunks of one answer to `message` (a new assistant message, or the one a turn goes
 * on in: an answered approval, a staff answer's continuation). Text parts are found by the
 * chunk's `id` within this stream, tool parts by `toolCallId` across the message.
 */
export class MessageBuilder {
  readonly #texts = new Map<string, Part>();
  finishReason = '';
  errorText = '';
  title = '';

  readonly message: Message;

  constructor(message: Message) {
    this.message = message;
  }

  #tool(chunk: Chunk): Part {
    const id = str(chunk.toolCallId);
    let part = this.message.parts.find((candidate) => candidate.toolCallId === id);
    if (!part) {
      part = { type: `tool-${str(chunk.toolName)}`, toolCallId: id, toolName: str(chunk.toolName), state: 'input-streaming' };
      this.message.parts.push(part);
    }
    return part;
  }

  apply(chunk: Chunk): void {
    const { type } = chunk;
    if (type === 'start' && typeof chunk.messageId === 'string') this.message.id = chunk.messageId;
    else if (type === 'text-start') {
      const part: Part = { type: 'text', text: '', state: 'streaming' };
      this.#texts.set(str(chunk.id), part);
      this.message.parts.push(part);
    } else if (type === 'text-delta') {
      const part = this.#texts.get(str(chunk.id));
      if (part) part.text += str(chunk.delta);
    } else if (type === 'text-end') {
      const part = this.#texts.get(str(chunk.id));
      if (part) part.state = 'done';
    } else if (type === 'tool-input-start') this.#tool(chunk);
    else if (type === 'tool-input-available') Object.assign(this.#tool(chunk), { state: 'input-available', input: chunk.input });
    else if (type === 'tool-input-error')
      Object.assign(this.#tool(chunk), { state: 'output-error', input: chunk.input, errorText: str(chunk.errorText) });
    else if (type === 'tool-approval-request')
      Object.assign(this.#tool(chunk), { state: 'approval-requested', approval: { id: str(chunk.approvalId) } });
    else if (type === 'tool-output-available') Object.assign(this.#tool(chunk), { state: 'output-available', output: chunk.output });
    else if (type === 'tool-output-error') Object.assign(this.#tool(chunk), { state: 'output-error', errorText: str(chunk.errorText) });
    else if (type === 'tool-output-denied') this.#tool(chunk).state = 'output-denied';
    else if (type === 'data-conversation-title') this.title = str((chunk.data as { title?: unknown } | undefined)?.title);
    else if (type.startsWith('data-') && chunk.transient !== true) {
      // A data part with an id is replaced by the next of the same type and id, as the SDK does.
      const same = this.message.parts.find((part) => part.type === type && part.id !== undefined && part.id === chunk.id);
      if (same) same.data = chunk.data;
      else this.message.parts.push({ type, ...(typeof chunk.id === 'string' ? { id: chunk.id } : {}), data: chunk.data });
    } else if (type === 'finish') this.finishReason = str(chunk.finishReason) || 'stop';
    else if (type === 'error') this.errorText = str(chunk.errorText) || 'The answer failed.';
  }
}

/** A random id (no secure context needed, unlike `crypto.randomUUID`). */
export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
