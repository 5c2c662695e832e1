import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';

/** One recorded stream (`cases.json`): its file, and the message it goes on in (an empty assistant message for a new answer). */
export type RecordedCase = { name: string; stream: string; start: UIMessage };

/**
 * The assistant message the AI SDK's own client code builds from a UI message stream's bytes:
 * `DefaultChatTransport` parses the events (its `fetch` answers with `sse`) and
 * `readUIMessageStream` applies them to `start` (continued, as `useChat` continues an answered
 * approval), as `useChat` and `Chat` do. Also the texts of the `error` chunks.
 */
export async function sdkRead(sse: string, start: UIMessage): Promise<{ message: UIMessage; errors: string[] }> {
  const transport = new DefaultChatTransport<UIMessage>({
    api: 'http://recorded.invalid/chat',
    fetch: async () => new Response(sse, { headers: { 'content-type': 'text/event-stream' } }),
  });
  const stream = await transport.sendMessages({
    chatId: 'recorded',
    messages: [start],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  const errors: string[] = [];
  let message = structuredClone(start);
  for await (const state of readUIMessageStream<UIMessage>({
    stream,
    message: structuredClone(start),
    onError: (error) => errors.push(error instanceof Error ? error.message : String(error)),
    terminateOnError: false,
  }))
    message = state;
  return { message, errors };
}
