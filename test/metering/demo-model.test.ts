import test from 'ava';
import { jsonSchema, stepCountIs, streamText, tool, type ToolSet } from 'ai';
import { demoModel } from '../../app/metering/demo-model.ts';
import { HELP_CENTER } from '../../seeds/demo-help-center.ts';

/** One demo turn through the AI SDK's `streamText`, offering tools named `names` that answer `output`; the inputs each tool ran with. */
async function demoTurn(
  prompt: string,
  names: string[],
  output: unknown = 'found it',
): Promise<{ calls: [string, unknown][]; text: string }> {
  const calls: [string, unknown][] = [];
  const tools: ToolSet = {};
  for (const name of names)
    tools[name] = tool({
      inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object', properties: { query: { type: 'string' } } }),
      execute: async (input: Record<string, unknown>) => {
        calls.push([name, input]);
        return output;
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

const REFUNDS = {
  document: 'refunds-and-returns.md',
  heading: 'Refunds and returns > Asking for a refund',
  text: HELP_CENTER['refunds-and-returns.md'].split('## Asking for a refund')[1]!.split('##')[0]!.trim(),
  score: 1.45,
};
const SHIPPING = {
  document: 'shipping.md',
  heading: 'Shipping > Delivery times',
  text: 'Standard delivery takes 3 to 5 business days.',
  score: 0.4,
};

test('asked a question with search_knowledge_base offered, the demo model searches and answers in plain sentences from the best passage', async (t) => {
  const { calls, text } = await demoTurn('How long do refunds take?', ['search_knowledge_base', 'list_documents'], {
    query: 'How long do refunds take?',
    passages: [REFUNDS, SHIPPING],
  });
  t.deepEqual(calls, [['search_knowledge_base', { query: 'How long do refunds take?' }]]);
  t.is(
    text,
    'Refunds are paid back to the original payment method within 5 to 7 business days after we approve them. ' +
      'You can ask for a refund within 30 days of purchase from Orders > Request refund. (From refunds-and-returns.md.)',
  );
});

test('a passage longer than an answer is quoted in whole words, and nothing of the JSON shows', async (t) => {
  const words = Array.from({ length: 400 }, (_, i) => `refundword${i}`);
  const { text } = await demoTurn('What about refundword7?', ['search_knowledge_base'], {
    query: 'What about refundword7?',
    passages: [{ document: 'long.md', heading: 'Long', text: `${words.join(' ')}.\n\nSecond sentence.`, score: 1 }],
  });
  t.true(text.endsWith('… (From long.md.)'), text.slice(-40));
  const quoted = text.slice(0, -' (From long.md.)'.length - 1).split(' ');
  t.deepEqual(quoted, words.slice(0, quoted.length));
  t.true(text.length < 700);
  t.notRegex(text, /[{}\n]|\\n|"passages"/);
});

test('with no passage found, the demo model says the documents hold nothing about the question', async (t) => {
  const { text } = await demoTurn('Do you sell gift cards?', ['search_knowledge_base'], {
    query: 'Do you sell gift cards?',
    passages: [],
    note: 'No passage of the knowledge base matches this query.',
  });
  t.is(text, 'I found nothing about "Do you sell gift cards?" in this agent\'s documents.');
});

test("a message that asks nothing gets the demo answer without a search; another tool's result is said in plain words", async (t) => {
  const hello = await demoTurn('Hello there', ['search_knowledge_base']);
  t.deepEqual(hello.calls, []);
  t.regex(hello.text, /built-in demo model.*You said: "Hello there"/);
  const listed = await demoTurn('please use list_documents', ['list_documents'], {
    documents: [{ name: 'shipping.md', bytes: 462 }],
    nextCursor: null,
  });
  t.is(listed.text, 'The tool list_documents answered: name: shipping.md; bytes: 462');
});
