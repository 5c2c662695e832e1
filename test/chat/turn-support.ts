import type { UIMessageChunk } from 'ai';
import { sql } from 'slonik';
import { z } from 'zod';
import { chatPath, userMessage, type T } from './support.ts';

/** Polls `condition` (a read of the service or the database) until it holds. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    // Waiting on external peers (PostgreSQL, Redis, a provider or MCP server): polled, bounded by ms.
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The chunks of a raw UI message stream body, and whether it ended with `data: [DONE]`. */
export function parseStream(text: string): { chunks: UIMessageChunk[]; done: boolean } {
  const events = text.split('\n\n').filter(Boolean);
  const done = events.at(-1) === 'data: [DONE]';
  const chunks = events
    .filter((event) => event !== 'data: [DONE]')
    .map((event) => JSON.parse(event.slice('data: '.length)) as UIMessageChunk);
  return { chunks, done };
}

export const textOfChunks = (chunks: UIMessageChunk[]) =>
  chunks.flatMap((chunk) => (chunk.type === 'text-delta' ? [chunk.delta] : [])).join('');

/** Posts one user message with raw fetch; the response is returned unread. */
export function post(base: string, auth: string, chatId: string, text: string, messageId?: string, signal?: AbortSignal) {
  return fetch(`${base}${chatPath()}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ id: chatId, messages: [userMessage(text, messageId)] }),
    signal,
  });
}

export const resumePath = (chatId: string, agent?: string) => `${chatPath(agent)}/${chatId}/stream`;
export const stopPath = (chatId: string) => `${chatPath()}/${chatId}/stop`;

const Stored = z.strictObject({ role: z.string(), parts: z.array(z.record(z.unknown())) });

/** The stored messages of a conversation by its client id, oldest first. */
export function storedMessages(t: T, chatId: string) {
  return t.context.t.db.pool.any(sql.type(Stored)`
    SELECT m.role, m.parts FROM chat_messages m JOIN chat_conversations c ON c.id = m.conversation_id
    WHERE c.client_id = ${chatId} ORDER BY m.id`);
}

export const storedText = (message: { parts: Record<string, unknown>[] } | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.type === 'text' ? [String(part.text)] : [])).join('');

/** The outcomes of a conversation's turns, oldest first. */
export function turnOutcomes(t: T, chatId: string) {
  return t.context.t.db.pool.anyFirst(sql.type(z.strictObject({ outcome: z.string().nullable() }))`
    SELECT outcome FROM chat_turns WHERE client_conversation_id = ${chatId} ORDER BY started_at, id`);
}

export const usageCount = (t: T) =>
  t.context.t.db.pool.oneFirst(
    sql.type(z.strictObject({ n: z.number() }))`SELECT count(*)::int AS n FROM usage_events WHERE action_type = 'user_interaction'`,
  );

/**
 * Reads a stream response until its text so far satisfies `ready`, then goes on reading in the
 * background: resolves once ready, with the promise of the whole text.
 */
export async function readUntil(response: Response, ready: (text: string) => boolean): Promise<{ whole: Promise<string> }> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!ready(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended before it was ready: ${text}`);
    text += value;
  }
  const whole = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text;
      text += value;
    }
  })();
  return { whole };
}

/** The UI stream's text so far includes `expected` (as deltas). */
export const hasText = (expected: string) => (raw: string) =>
  textOfChunks(parseStream(raw.slice(0, raw.lastIndexOf('\n\n') + 2)).chunks).includes(expected);
