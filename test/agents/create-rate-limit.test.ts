import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';
import { as } from '../tools/support.ts';

const test = withTestApp(anyTest, { rateLimits: true });

test('forty agent creates in a burst are not all 201: twenty a minute per user, the rest 429', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => owner.post('/api/ai/agents', { name: `Burst ${i}` })));
  const statuses = answers.map((answer) => answer.status);
  t.is(statuses.filter((status) => status === 201).length, 20);
  t.is(statuses.filter((status) => status === 429).length, 20);
  const denied = answers.find((answer) => answer.status === 429)!;
  t.is(denied.body.errorCode, 'CORE.RATE_LIMIT_EXCEEDED');
  t.true(Number(denied.headers['retry-after']) >= 1);
  const names = ((await owner.get('/api/ai/agents').expect(200)).body.agents as { name: string }[]).filter((a) =>
    a.name.startsWith('Burst '),
  );
  t.is(names.length, 20);
});
