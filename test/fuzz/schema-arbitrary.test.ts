import test from 'ava';
import fc from 'fast-check';
import { CONVERSATION_ID_PATTERN } from '../../app/chat/schemas.ts';
import { arbitraryOf, type Hints } from '../../fuzz/schema-arbitrary.ts';

const hints = (known: string[]): Hints => ({ uuid: () => fc.uuid(), known: () => known, tag: 'test' });

test('a string with a pattern is drawn matching it, beside the known values of its name too (an empty conversationId never routes)', (t) => {
  const schema = { type: 'string', pattern: CONVERSATION_ID_PATTERN };
  const pattern = new RegExp(CONVERSATION_ID_PATTERN, 'u');
  const drawn = fc.sample(arbitraryOf(schema, hints(['chat-1']), 'conversationId'), { seed: 7, numRuns: 2_000 }) as string[];
  t.deepEqual(
    drawn.filter((text) => !pattern.test(text)),
    [],
  );
  t.true(drawn.includes('chat-1'), 'the known value is drawn');
  t.true(new Set(drawn).size > 100, 'and many others');
});

test('a string without a pattern is still drawn freely beside the known values', (t) => {
  const drawn = fc.sample(arbitraryOf({ type: 'string', maxLength: 10 }, hints(['known']), 'label'), { seed: 7, numRuns: 500 }) as string[];
  t.true(drawn.includes('known'));
  t.true(
    drawn.some((text) => !/^[A-Za-z0-9_-]*$/.test(text)),
    'text outside any id alphabet is drawn',
  );
});
