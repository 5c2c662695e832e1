import test from 'ava';
import { jsonSchema, stepCountIs, streamText, tool, type ToolSet } from 'ai';
import { demoModel } from '../../app/chat/demo-model.ts';

/** One demo turn through the AI SDK's `streamText`, offering tools named `names`; the inputs each tool ran with. */
async function demoTurn(prompt: string, names: string[]): Promise<{ calls: [string, unknown][]; text: string }> {
  const calls: [string, unknown][] = [];
  const tools: ToolSet = {};
  for (const name of names)
    tools[name] = tool({
      inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object', properties: { query: { type: 'string' } } }),
      execute: async (input: Record<string, unknown>) => {
        calls.push([name, input]);
        return 'found it';
      },
    });
  const result = streamText({ model: demoModel(), prompt, tools, stopWhen: stepCountIs(2) });
  return { calls, text: await result.text };
}

test('the demo model calls a tool whose name holds pattern characters, its input the request without the words asking', async (t) => {
  const { calls, text } = await demoTurn('Please use lookup(: refund times', ['lookup(', 'other']);
  t.deepEqual(calls, [['lookup(', { query: 'refund times' }]]);
  t.regex(text, /The tool lookup\( answered: .*found it/);
});

test('a tool name that would be a catastrophic pattern is read as its letters, not run as a pattern', async (t) => {
  // Read as a pattern, `(a+)+b` against these 40 a's would backtrack 2^40 times before failing.
  const prompt = `use ${'a'.repeat(40)} with (a+)+b`;
  const { calls } = await demoTurn(prompt, ['(a+)+b']);
  t.deepEqual(calls, [['(a+)+b', { query: prompt }]]);
});

test('asked by a name with dots, the demo model strips exactly that name', async (t) => {
  const { calls } = await demoTurn('call docs.search: how long do refunds take?', ['docs.search']);
  t.deepEqual(calls, [['docs.search', { query: 'how long do refunds take?' }]]);
});
