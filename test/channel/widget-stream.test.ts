import test from 'ava';
import { readFileSync } from 'node:fs';
import type { UIMessage } from 'ai';
import { MessageBuilder, readChunks, type Message } from '../../dashboard/src/widget/stream.ts';
import { sdkRead, type RecordedCase } from './ui-streams/sdk-reader.ts';

const folder = new URL('./ui-streams/', import.meta.url);
const CASES = JSON.parse(readFileSync(new URL('cases.json', folder), 'utf8')) as RecordedCase[];

/** A message as JSON carries it (the widget posts its messages back; a key set to undefined is no key). */
const plain = (message: unknown) => JSON.parse(JSON.stringify(message)) as unknown;

/** The widget's reading of `sse` into `start`, as its chat does with a response. */
async function widgetRead(sse: string, start: UIMessage) {
  const builder = new MessageBuilder(structuredClone(start) as Message);
  await readChunks(new Response(sse), (chunk) => builder.apply(chunk));
  return builder;
}

test('the recorded streams cover text, tool calls, approvals answered both ways, tool and provider errors, a refusal and a resume', (t) => {
  const chunkTypes = new Set(
    CASES.flatMap(({ stream }) =>
      [...readFileSync(new URL(stream, folder), 'utf8').matchAll(/^data: (\{.*\})$/gm)].map(
        (line) => (JSON.parse(line[1]!) as { type: string }).type,
      ),
    ),
  );
  for (const type of [
    'start',
    'start-step',
    'text-start',
    'text-delta',
    'text-end',
    'tool-input-start',
    'tool-input-delta',
    'tool-input-available',
    'tool-input-error',
    'tool-output-available',
    'tool-output-error',
    'tool-approval-request',
    'tool-output-denied',
    'data-conversation-title',
    'finish-step',
    'finish',
    'error',
  ])
    t.true(chunkTypes.has(type), type);
  t.true(CASES.some((recorded) => recorded.name === 'resume'));
});

for (const recorded of CASES) {
  test(`the widget builds the message the AI SDK's readUIMessageStream builds: ${recorded.name}`, async (t) => {
    const sse = readFileSync(new URL(recorded.stream, folder), 'utf8');
    const sdk = await sdkRead(sse, recorded.start);
    const widget = await widgetRead(sse, recorded.start);
    t.deepEqual(plain(widget.message), plain(sdk.message));
    t.deepEqual(widget.errorText ? [widget.errorText] : [], sdk.errors);
    t.true(sdk.message.parts.length > 0 || sdk.errors.length > 0, 'the stream says something');
  });
}

test('a stream read in pieces of every size gives the widget the same message', async (t) => {
  const recorded = CASES.find((candidate) => candidate.name === 'tool-errors')!;
  const bytes = new TextEncoder().encode(readFileSync(new URL(recorded.stream, folder), 'utf8'));
  const whole = plain((await widgetRead(new TextDecoder().decode(bytes), recorded.start)).message);
  for (const size of [1, 2, 7, 64]) {
    const pieces = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += size) controller.enqueue(bytes.slice(at, at + size));
        controller.close();
      },
    });
    const builder = new MessageBuilder(structuredClone(recorded.start) as Message);
    await readChunks(new Response(pieces), (chunk) => builder.apply(chunk));
    t.deepEqual(plain(builder.message), whole, `pieces of ${size} bytes`);
  }
});
