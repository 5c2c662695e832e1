import anyTest, { type ExecutionContext } from 'ava';
import request from 'supertest';
import { testConfig, withTestApp, type TestContext } from '../helpers/app.ts';
import { as } from '../tools/support.ts';

const test = withTestApp(anyTest);
type T = ExecutionContext<TestContext>;

/** Other Agency (one agent in the demo data): its owner, its agents in use, and creates through an app whose cap is `cap`. */
async function otherAgency(t: T) {
  const other = await as(t.context.t, 'owner@other.test');
  const listed = async () => ((await other.get('/api/ai/agents').expect(200)).body.agents as { id: string }[]).map((a) => a.id);
  const creatorAt = (cap: number) => {
    const http = request(t.context.t.rebuild({ config: { ...testConfig(), agents: { perOrganization: cap } } }).callback());
    return (name: string) => http.post('/api/ai/agents').set('authorization', `Bearer ${other.token}`).send({ name });
  };
  return { other, listed, creatorAt };
}

const limitReached = (limit: number) => ({
  statusCode: 409,
  errorCode: 'AI.AGENT_LIMIT_REACHED',
  message: {
    en: `An organization may have at most ${limit} agents; archive one to create another.`,
    es: `Una organización puede tener como máximo ${limit} agentes; archiva uno para crear otro.`,
  },
  metadata: { limit },
});

test.serial(
  'twelve parallel creates with four places left make exactly four agents; the rest are 409 AI.AGENT_LIMIT_REACHED',
  async (t) => {
    const { listed, creatorAt } = await otherAgency(t);
    const cap = (await listed()).length + 4;
    const create = creatorAt(cap);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => create(`Parallel ${i}`)));
    t.deepEqual(
      answers.map((answer) => answer.status).toSorted((a, b) => a - b),
      [...Array<number>(4).fill(201), ...Array<number>(8).fill(409)],
    );
    for (const refused of answers.filter((answer) => answer.status === 409)) t.deepEqual(refused.body, limitReached(cap));
    t.is((await listed()).length, cap);
  },
);

test.serial('archived agents do not count toward the cap: archiving one frees a place, once', async (t) => {
  const { other, listed, creatorAt } = await otherAgency(t);
  const cap = (await listed()).length;
  const create = creatorAt(cap);
  t.deepEqual((await create('One too many')).body, limitReached(cap));
  await other.delete(`/api/ai/agents/${(await listed()).at(-1)}`).expect(204);
  t.is((await create('Replacement')).status, 201);
  t.is((await create('Again one too many')).status, 409);
  t.is((await listed()).length, cap);
});

test('the cap defaults to 100 agents per organization', (t) => {
  t.is(testConfig().agents.perOrganization, 100);
});
