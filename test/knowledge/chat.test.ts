import anyTest from 'ava';
import type { UIMessage } from 'ai';
import { withTestApp } from '../helpers/app.ts';
import { seedDemoKnowledge } from '../../seeds/demo-knowledge.ts';
import { bearer, chatConfig, sendChat, serve, textOf, userMessage } from '../chat/support.ts';

const test = withTestApp(anyTest);

type ToolPart = { type: string; state: string; input?: { query?: string }; output?: { passages: { document: string; text: string }[] } };

test('on a fresh demo, the Support Assistant answers from the help center through the demo model', async (t) => {
  await seedDemoKnowledge(t.context.t.app.deps);
  // Development without a provider key: the built-in demo model, as after `npm start`.
  const base = await serve(t, chatConfig({ gatewayApiKey: undefined }));
  const auth = await bearer(t);
  const { message } = await sendChat(base, auth, 'help-center', [
    userMessage('Please use search_knowledge_base: how long do refunds take?'),
  ]);
  const call = (message as UIMessage).parts.find((part) => part.type === 'tool-search_knowledge_base') as unknown as ToolPart;
  t.is(call.state, 'output-available');
  t.is(call.input!.query, 'how long do refunds take?');
  t.is(call.output!.passages[0]!.document, 'refunds-and-returns.md');
  t.regex(call.output!.passages[0]!.text, /5 to 7 business days/);
  t.is(
    textOf(message),
    'Refunds are paid back to the original payment method within 5 to 7 business days after we approve them. ' +
      'You can ask for a refund within 30 days of purchase from Orders > Request refund. (From refunds-and-returns.md.)',
  );
});

test('asked a plain question, the demo model searches the help center itself and answers in sentences, not JSON', async (t) => {
  await seedDemoKnowledge(t.context.t.app.deps);
  const base = await serve(t, chatConfig({ gatewayApiKey: undefined }));
  const auth = await bearer(t);
  const { message } = await sendChat(base, auth, 'plain-question', [userMessage('How long do refunds take?')]);
  const call = (message as UIMessage).parts.find((part) => part.type === 'tool-search_knowledge_base') as unknown as ToolPart;
  t.is(call.input!.query, 'How long do refunds take?');
  t.regex(textOf(message), /^Refunds are paid back to the original payment method within 5 to 7 business days/);
  t.notRegex(textOf(message), /[{}\n]/);
});
