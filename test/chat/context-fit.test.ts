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

test('an answered approval being continued keeps its call and result, and the user message before it, even over the bound', (t) => {
  const messages = [user('old question'), assistant(words(500)), user('please fetch'), call('c1'), result('c1', words(3000))];
  const sent = fitContext(messages, window(1000));
  t.deepEqual(sent, [messages[2], messages[3], messages[4]]);
});

test('within a multi-step turn, the turn’s user message and the newest step stay; older steps give way first', (t) => {
  const messages = [
    user('the question'),
    call('a'),
    result('a', words(800)),
    call('b'),
    result('b', words(800)),
    call('c'),
    result('c', words(100)),
  ];
  const sent = fitContext(messages, window(1200));
  t.deepEqual(sent, [messages[0], messages[3], messages[4], messages[5], messages[6]]);
});

test('a history that fits is sent whole and unchanged', (t) => {
  const messages = [user('hi'), assistant('hello'), user('how are you')];
  t.deepEqual(fitContext(messages, window(64_000)), messages);
});

test('a megabyte without spaces is estimated in bounded time and never refused for special tokens', (t) => {
  t.true(estimateTokens('a'.repeat(1024 * 1024)) > 100_000);
  t.true(estimateTokens('<|endoftext|><|im_start|>') > 0);
});
