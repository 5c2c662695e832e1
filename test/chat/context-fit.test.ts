import test from 'ava';
import type { ModelMessage } from 'ai';
import { fitContext } from '../../app/chat/context-window.ts';
import { estimateTokens } from '../../app/metering/tokens.ts';

const words = (n: number, word = 'refund') => Array.from({ length: n }, () => word).join(' ');
const user = (text: string): ModelMessage => ({ role: 'user', content: text });
const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
const call = (id: string): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'fetch_url', input: { url: 'https://example.com' } }],
});
const result = (id: string, text: string): ModelMessage => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'fetch_url', output: { type: 'text', value: text } }],
});
const window = (maxTokens: number) => ({ maxTokens, system: 'You help.', toolCount: 0 });

const resultText = (message: ModelMessage | undefined) => {
  const part = (message?.content as { type: string; output: { type: string; value: string } }[])[0]!;
  return part.output.value;
};

test('an answered approval being continued keeps its call and result, and the user message before it; older units give way', (t) => {
  const messages = [user('old question'), assistant(words(800)), user('please fetch'), call('c1'), result('c1', words(200))];
  const sent = fitContext(messages, window(1000));
  t.deepEqual(sent, [messages[2], messages[3], messages[4]]);
});

test('a tool result over a quarter of the window is cut to it in what is sent, saying so; the stored message is not changed', (t) => {
  const messages = [user('please fetch'), call('c1'), result('c1', words(3000))];
  const before = structuredClone(messages);
  const sent = fitContext(messages, window(1000));
  t.is(sent.length, 3);
  const text = resultText(sent[2]);
  t.true(estimateTokens(text) <= 250, `${estimateTokens(text)} tokens`);
  t.true(text.startsWith('refund refund'));
  t.regex(text, / \[cut to fit the context window: about 250 of 30\d\d tokens\]$/);
  t.deepEqual(messages, before);
});

test('the results of one step share their quarter: a small one stays whole, the large ones split the rest', (t) => {
  const parts = [words(50, 'small'), words(2000), words(3000)].map((text, index) => ({
    type: 'tool-result' as const,
    toolCallId: `c${index}`,
    toolName: 'fetch_url',
    output: { type: 'json' as const, value: { text } },
  }));
  const messages: ModelMessage[] = [user('fetch three pages'), call('c0'), { role: 'tool', content: parts }];
  const sent = fitContext(messages, window(2000));
  const outputs = (sent[2]!.content as { output: { type: string; value: unknown } }[]).map((part) => part.output);
  t.deepEqual(outputs[0], parts[0]!.output);
  for (const output of outputs.slice(1)) {
    t.is(output.type, 'text');
    t.true(estimateTokens(output.value as string) <= 225);
    t.regex(output.value as string, /^\{"text":"refund refund.* \[cut to fit the context window: about 22\d of \d+ tokens\]$/);
  }
});

test('within a multi-step turn, the turn’s user message and the newest step stay; older steps give way first', (t) => {
  // Four steps of 240 tokens (under their quarter, so whole) and a last one of 100: only three of the four fit beside it.
  const steps = ['a', 'b', 'c', 'd'].flatMap((id) => [call(id), result(id, words(240))]);
  const messages = [user('the question'), ...steps, call('e'), result('e', words(100))];
  const sent = fitContext(messages, window(1000));
  t.deepEqual(sent, [messages[0], ...messages.slice(3)]);
});

test('a history that fits is sent whole and unchanged', (t) => {
  const messages = [user('hi'), assistant('hello'), user('how are you')];
  t.deepEqual(fitContext(messages, window(64_000)), messages);
});

test('a megabyte without spaces is estimated in bounded time and never refused for special tokens', (t) => {
  t.true(estimateTokens('a'.repeat(1024 * 1024)) > 100_000);
  t.true(estimateTokens('<|endoftext|><|im_start|>') > 0);
});
