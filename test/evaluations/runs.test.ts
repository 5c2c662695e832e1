import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest from 'ava';
import { sql } from 'slonik';
import request from 'supertest';
import { evaluationRuns } from '../../app/evaluations/runner.ts';
import { withTestApp } from '../helpers/app.ts';
import { startMcpToolPeer } from '../helpers/mcp-tool-peer.ts';
import { startOpenAiPeer, type ChatRequest, type Reply } from '../helpers/openai-peer.ts';
import { chatConfig, type T } from '../chat/support.ts';
import { OWNER } from '../tools/support.ts';

const test = withTestApp(anyTest);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies read field by field
type Json = Record<string, any>;

/** An app whose platform provider is a scripted peer; `call` signs in as the owner; `settle` waits for its runs. */
async function setUp(t: T, script: (request: ChatRequest, index: number) => Reply | Promise<Reply>, ai: Json = {}) {
  const peer = await startOpenAiPeer(script);
  t.teardown(() => peer.close());
  const app = t.context.t.rebuild({ config: chatConfig({ gatewayUrl: peer.url, ...ai }) });
  const token = await t.context.t.login('owner@demo.test');
  const http = () => request(app.callback());
  const auth = { authorization: `Bearer ${token}` };
  const call = {
    get: (path: string) => http().get(path).set(auth),
    post: (path: string, body: unknown) =>
      http()
        .post(path)
        .set(auth)
        .send(body as object),
    put: (path: string, body: unknown) =>
      http()
        .put(path)
        .set(auth)
        .send(body as object),
    patch: (path: string, body: unknown) =>
      http()
        .patch(path)
        .set(auth)
        .send(body as object),
  };
  const agent = (await call.post('/api/ai/agents', { name: `Evaluated ${Math.random()}`, instructions: 'Be helpful.' }).expect(201))
    .body as Json;
  const base = `/api/ai/agents/${agent.id}`;
  const addCase = async (name: string, text: string, expect: Json) =>
    (await call.post(`${base}/eval-cases`, { name, messages: [{ role: 'user', parts: [{ type: 'text', text }] }], expect }).expect(201))
      .body as Json;
  const settle = async (runId: string) => {
    await evaluationRuns(app.deps).idle();
    return (await call.get(`${base}/eval-runs/${runId}`).expect(200)).body as Json;
  };
  return { peer, app, call, agent, base, addCase, settle };
}

const lastUserText = (body: ChatRequest) => {
  const last = body.messages.filter((message) => message.role === 'user').at(-1);
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
};

test.serial(
  'a run answers each case with the current definition and judges contains and notContains, without changing the agent',
  async (t) => {
    const { call, base, addCase, settle, agent, peer } = await setUp(t, (body) =>
      lastUserText(body).includes('refund') ? { kind: 'text', text: 'Refunds take 5 days.' } : { kind: 'text', text: 'Hello there!' },
    );
    const refund = await addCase('Refund policy', 'How long do refunds take?', { contains: ['5 DAYS'], notContains: ['sorry'] });
    const greeting = await addCase('Greeting', 'Hi', { contains: ['refund'] });
    const started = await call.post(`${base}/eval-runs`, {}).expect(202);
    t.deepEqual(Object.keys(started.body).sort(), ['id', 'status']);
    t.is(started.body.status, 'running');
    const run = await settle(started.body.id);
    t.is(run.status, 'failed');
    t.is(run.version, 1);
    t.is(run.definition.instructions, 'Be helpful.');
    t.is(peer.requests[0]!.body.messages[0]!.content, 'Be helpful.');
    const byName = Object.fromEntries(run.results.map((result: Json) => [result.name, result]));
    t.like(byName['Refund policy'], {
      caseId: refund.id,
      passed: true,
      reasons: [],
      answer: 'Refunds take 5 days.',
      toolCalls: [],
      judge: null,
    });
    t.like(byName.Greeting, { caseId: greeting.id, passed: false, reasons: ['The answer does not contain "refund".'] });
    t.true(byName.Greeting.usage.totalTokens > 0);
    const after = (await call.get(base).expect(200)).body as Json;
    t.deepEqual(after, agent);
    const list = await call.get(`${base}/eval-runs`).expect(200);
    t.deepEqual(
      list.body.runs.map((listed: Json) => [listed.id, listed.status]),
      [[started.body.id, 'failed']],
    );
  },
);

test.serial(
  'a draft definition is tried without changing the agent, and the PATCH to it applies only with a run that passed on it',
  async (t) => {
    const { call, base, addCase, settle, peer } = await setUp(t, (body) => ({
      kind: 'text',
      text: String(body.messages[0]!.content).includes('French') ? 'Bonjour' : 'Hello',
    }));
    await addCase('Speaks French', 'Greet me', { contains: ['bonjour'] });
    const current = await settle((await call.post(`${base}/eval-runs`, {}).expect(202)).body.id);
    t.is(current.status, 'failed');
    const draft = { instructions: 'Answer in French.' };
    const tried = await settle((await call.post(`${base}/eval-runs`, { definition: draft }).expect(202)).body.id);
    t.is(tried.status, 'passed');
    t.is(tried.definition.instructions, 'Answer in French.');
    t.is(peer.requests.length, 2);
    t.is((await call.get(base).expect(200)).body.instructions, 'Be helpful.');

    const failedGate = await call.patch(base, { ...draft, evaluationRunId: current.id }).expect(409);
    t.is(failedGate.body.errorCode, 'AI.EVALUATION_NOT_PASSED');
    const otherDefinition = await call.patch(base, { instructions: 'Answer in German.', evaluationRunId: tried.id }).expect(409);
    t.is(otherDefinition.body.errorCode, 'AI.EVALUATION_NOT_PASSED');
    const unknown = await call.patch(base, { ...draft, evaluationRunId: '01900000-0000-7000-8000-00000000ffff' }).expect(409);
    t.is(unknown.body.errorCode, 'AI.EVALUATION_NOT_PASSED');
    t.is((await call.get(base).expect(200)).body.instructions, 'Be helpful.');
    t.is((await call.get(`${base}/versions`).expect(200)).body.versions.length, 1);

    const applied = await call.patch(base, { ...draft, evaluationRunId: tried.id, versionNote: 'tested' }).expect(200);
    t.is(applied.body.instructions, 'Answer in French.');
    const versions = (await call.get(`${base}/versions`).expect(200)).body.versions as Json[];
    t.like(versions[0], { version: 2, note: 'tested' });
  },
);

test.serial('tools never act in a run: each call is recorded with its input and answered "not run in an evaluation"', async (t) => {
  const mcp = await startMcpToolPeer();
  t.teardown(() => mcp.close());
  let outbound = 0;
  const target = createServer((_request, response) => {
    outbound += 1;
    response.end('fetched');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => target.close(() => resolve())));
  const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/page`;
  const toolResults: unknown[] = [];
  const { call, base, addCase, settle } = await setUp(t, (body) => {
    const results = body.messages.filter((message) => message.role === 'tool');
    if (results.length > 0) {
      toolResults.push(...results.map((message) => message.content));
      return { kind: 'text', text: 'All done.' };
    }
    return {
      kind: 'tool-call',
      toolName: 'send_email',
      id: 'call_mail',
      input: { to: ['customer@example.test'], subject: 'Hello', text: 'Your refund is on its way.' },
      alongside: [
        { toolName: 'create_issue', input: { title: 'Refund' }, id: 'call_issue' },
        { toolName: 'fetch_url', input: { url: targetUrl }, id: 'call_fetch' },
        { toolName: 'list_documents', input: {}, id: 'call_docs' },
      ],
    };
  });
  const server = await call
    .post(`${base}/mcp-servers`, { name: 'Peer', transportType: 'http', url: mcp.url })
    .expect(201)
    .then((response) => response.body.id as string);
  await call
    .put(`${base}/tools`, {
      tools: [
        { toolName: 'send_email', providerKey: 'email', permissionStatus: 'always_allow' },
        { toolName: 'create_issue', providerKey: `mcp:${server}`, permissionStatus: 'needs_approval' },
        { toolName: 'fetch_url', providerKey: 'web', permissionStatus: 'always_allow' },
        { toolName: 'list_documents', providerKey: 'knowledge', permissionStatus: 'always_allow' },
      ],
    })
    .expect(200);
  const emailsBefore = await t.context.t.db.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM notification_outbox`);
  await addCase('Acts', 'Mail the customer and open an issue', { toolCalls: ['send_email', 'create_issue'], noToolCalls: true });
  const run = await settle((await call.post(`${base}/eval-runs`, {}).expect(202)).body.id);
  const [result] = run.results as Json[];
  t.deepEqual(result!.toolCalls, [
    { toolName: 'send_email', input: { to: ['customer@example.test'], subject: 'Hello', text: 'Your refund is on its way.' } },
    { toolName: 'create_issue', input: { title: 'Refund' } },
    { toolName: 'fetch_url', input: { url: targetUrl } },
    { toolName: 'list_documents', input: {} },
  ]);
  t.is(result!.answer, 'All done.');
  t.deepEqual(result!.reasons, ['A tool was called (send_email, create_issue, fetch_url, list_documents) where none should be.']);
  t.is(run.status, 'failed');
  // The acting tools answered the model "not run in an evaluation"; list_documents read the knowledge base.
  const texts = toolResults.map((content) => JSON.stringify(content));
  t.is(texts.filter((text) => text.includes('not run in an evaluation')).length, 3);
  t.true(texts.some((text) => text.includes('documents')));
  t.deepEqual(mcp.calls, []);
  t.is(outbound, 0);
  t.is(await t.context.t.db.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM notification_outbox`), emailsBefore);
  t.is(await t.context.t.db.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM agent_sent_emails`), 0);
  t.is(await t.context.t.db.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM tool_approvals`), 0);
});

test.serial('toolCalls are judged in order, and the judge gives its verdict with a reason on the judge model', async (t) => {
  const { call, base, addCase, settle, peer } = await setUp(
    t,
    (body) => {
      if (String(body.messages[0]!.content).startsWith('You grade'))
        return { kind: 'text', text: lastUserText(body).includes('polite') ? 'FAIL: it is curt.' : 'PASS - it answers the question.' };
      if (body.messages.some((message) => message.role === 'tool')) return { kind: 'text', text: 'Found it.' };
      return { kind: 'tool-call', toolName: 'list_documents', input: {} };
    },
    { judgeModel: 'judge/model-1' },
  );
  await call
    .put(`${base}/tools`, { tools: [{ toolName: 'list_documents', providerKey: 'knowledge', permissionStatus: 'always_allow' }] })
    .expect(200);
  await addCase('Lists', 'What documents are there?', { toolCalls: ['list_documents'], judge: 'It answers the question.' });
  await addCase('Polite', 'Be polite please', { judge: 'It is polite.' });
  await addCase('Wrong order', 'Search then list', { toolCalls: ['search_knowledge_base', 'list_documents'] });
  const run = await settle((await call.post(`${base}/eval-runs`, {}).expect(202)).body.id);
  const byName = Object.fromEntries(run.results.map((result: Json) => [result.name, result]));
  t.like(byName.Lists, { passed: true, judge: { passed: true, reason: 'it answers the question.' } });
  t.like(byName.Polite, {
    passed: false,
    judge: { passed: false, reason: 'it is curt.' },
    reasons: ['The judge failed the answer: it is curt.'],
  });
  t.like(byName['Wrong order'], { passed: false });
  t.regex(byName['Wrong order'].reasons[0], /do not include search_knowledge_base, list_documents in this order/);
  const judged = peer.requests.filter((received) => String(received.body.messages[0]!.content).startsWith('You grade'));
  t.is(judged.length, 2);
  t.true(judged.every((received) => received.body.model === 'judge/model-1' && received.body.stream !== true));
  t.regex(lastUserText(judged[0]!.body), /Rubric:\n.*\n\nConversation:\nuser: .*\n\nAnswer:\n/s);
});

test.serial(
  'every model call of a run is a user_interaction usage row marked as an evaluation, and analytics can leave them out',
  async (t) => {
    const { call, base, addCase, settle, agent } = await setUp(t, (body) =>
      String(body.messages[0]!.content).startsWith('You grade')
        ? { kind: 'text', text: 'PASS fine' }
        : { kind: 'text', text: 'Hi', usage: { prompt: 100, completion: 20 } },
    );
    await addCase('One', 'Hello', { judge: 'Greets.' });
    await addCase('Two', 'Hello again', { contains: ['hi'] });
    const run = await settle((await call.post(`${base}/eval-runs`, {}).expect(202)).body.id);
    t.is(run.status, 'passed');
    const rows = await t.context.t.db.pool.any(sql.unsafe`
    SELECT action_type::text AS action, metadata, user_id AS "userId" FROM usage_events WHERE agent_id = ${agent.id}`);
    t.is(rows.length, 3);
    t.true(rows.every((row) => row.action === 'user_interaction' && (row.metadata as Json).evaluation === true && row.userId === OWNER.id));
  },
);

test.serial(
  'a run of more than 50 cases, of no case or of a case of another agent is a 400; a third run at once is 409 AI.EVALUATION_BUSY',
  async (t) => {
    let release: () => void = () => {};
    const held = new Promise<Reply>((resolve) => (release = () => resolve({ kind: 'text', text: 'late' })));
    const { call, base, addCase, app } = await setUp(t, () => held);
    const none = await call.post(`${base}/eval-runs`, {}).expect(400);
    t.regex(JSON.stringify(none.body), /no test case/);
    const first = await addCase('Slow', 'Hi', { contains: ['late'] });
    const foreign = await call.post(`${base}/eval-runs`, { caseIds: ['01900000-0000-7000-8000-00000000ffff'] }).expect(400);
    t.regex(JSON.stringify(foreign.body), /caseIds/);
    const many = await call.post(`${base}/eval-runs`, { caseIds: Array.from({ length: 51 }, () => first.id) }).expect(400);
    t.is(many.body.statusCode, 400);
    const runs = await Promise.all([1, 2, 3].map(() => call.post(`${base}/eval-runs`, { caseIds: [first.id] })));
    t.deepEqual(runs.map((response) => response.status).sort(), [202, 202, 409]);
    t.is(runs.find((response) => response.status === 409)!.body.errorCode, 'AI.EVALUATION_BUSY');
    release();
    await evaluationRuns(app.deps).idle();
    await call.post(`${base}/eval-runs`, { caseIds: [first.id] }).expect(202);
    await evaluationRuns(app.deps).idle();
  },
);

test.serial('a run left by a stopped instance is taken over by another, which answers only its cases without a result', async (t) => {
  const { call, base, addCase, app, peer } = await setUp(t, () => ({ kind: 'text', text: 'ok' }));
  const a = await addCase('A', 'one', { contains: ['ok'] });
  const b = await addCase('B', 'two', { contains: ['ok'] });
  const db = t.context.t.db.pool;
  // What a stopped instance leaves: a running run whose lease passed, with one case answered.
  const runId = '01900000-0000-7000-8000-0000000000aa';
  const definition = (await call.get(`${base}/versions`).expect(200)).body.versions[0].definition;
  const agentId = base.split('/').at(-1)!;
  await db.query(sql.unsafe`
    INSERT INTO agent_eval_runs (id, organization_id, agent_id, status, version, definition, cases, created_by, started_at, lease_until, claims)
    SELECT ${runId}, organization_id, id, 'running', 1, ${JSON.stringify(definition)}::jsonb,
           ${JSON.stringify([a, b].map(({ id, name, messages, expect }) => ({ id, name, messages, expect })))}::jsonb,
           ${OWNER.id}, now() - interval '2 minutes', now() - interval '1 minute', 1
    FROM agents WHERE id = ${agentId}`);
  await db.query(sql.unsafe`
    INSERT INTO agent_eval_results (run_id, position, result) VALUES (${runId}, 0, ${JSON.stringify({
      caseId: a.id,
      name: 'A',
      passed: true,
      reasons: [],
      answer: 'ok',
      toolCalls: [],
      judge: null,
      usage: { totalTokens: 1, costUsd: 0 },
      error: false,
    })}::jsonb)`);
  t.is(await evaluationRuns(app.deps).sweep(), 1);
  await evaluationRuns(app.deps).idle();
  const run = (await call.get(`${base}/eval-runs/${runId}`).expect(200)).body as Json;
  t.is(run.status, 'passed');
  t.deepEqual(
    run.results.map((result: Json) => result.name),
    ['A', 'B'],
  );
  t.is(peer.requests.length, 1);
});

test.serial('a run claimed too many times ends error, never stays running', async (t) => {
  const { call, base, app } = await setUp(t, () => ({ kind: 'text', text: 'ok' }));
  const db = t.context.t.db.pool;
  const runId = '01900000-0000-7000-8000-0000000000bb';
  const agentId = base.split('/').at(-1)!;
  const definition = (await call.get(`${base}/versions`).expect(200)).body.versions[0].definition;
  await db.query(sql.unsafe`
    INSERT INTO agent_eval_runs (id, organization_id, agent_id, status, version, definition, cases, created_by, started_at, lease_until, claims)
    SELECT ${runId}, organization_id, id, 'running', 1, ${JSON.stringify(definition)}::jsonb, '[]'::jsonb, ${OWNER.id},
           now() - interval '5 minutes', now() - interval '1 minute', 3
    FROM agents WHERE id = ${agentId}`);
  await evaluationRuns(app.deps).sweep();
  await evaluationRuns(app.deps).idle();
  const run = (await call.get(`${base}/eval-runs/${runId}`).expect(200)).body as Json;
  t.is(run.status, 'error');
  t.not(run.endedAt, null);
});

test.serial('a case past the turn deadline ends the run error with the deadline as its reason', async (t) => {
  const armed: (() => void)[] = [];
  const timers = { setTimeout: (run: () => void) => (armed.push(run), armed.length), clearTimeout: () => {} };
  const peer = await startOpenAiPeer(() => ({ kind: 'hang' }));
  t.teardown(() => peer.close());
  const app = t.context.t.rebuild({ config: chatConfig({ gatewayUrl: peer.url }), timers });
  const token = await t.context.t.login('owner@demo.test');
  const auth = { authorization: `Bearer ${token}` };
  const http = () => request(app.callback());
  const agent = (await http().post('/api/ai/agents').set(auth).send({ name: 'Slow agent' }).expect(201)).body as Json;
  const base = `/api/ai/agents/${agent.id}`;
  await http()
    .post(`${base}/eval-cases`)
    .set(auth)
    .send({ name: 'Hangs', messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], expect: { contains: ['x'] } })
    .expect(201);
  const started = await http().post(`${base}/eval-runs`).set(auth).send({}).expect(202);
  while (peer.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
  for (const fire of armed.splice(0)) fire();
  await evaluationRuns(app.deps).idle();
  const run = (await http().get(`${base}/eval-runs/${started.body.id}`).set(auth).expect(200)).body as Json;
  t.is(run.status, 'error');
  t.regex(run.results[0].reasons[0], /limit of a turn/);
});

test.serial('runs and their cases are 404 to another organization', async (t) => {
  const { call, base, addCase, settle } = await setUp(t, () => ({ kind: 'text', text: 'ok' }));
  await addCase('Mine', 'Hi', { contains: ['ok'] });
  const run = await settle((await call.post(`${base}/eval-runs`, {}).expect(202)).body.id);
  const other = await t.context.t.login('owner@other.test');
  const foreign = await t.context.t.http().get(`${base}/eval-runs/${run.id}`).set('authorization', `Bearer ${other}`).expect(404);
  t.is(foreign.body.errorCode, 'AI.AGENT_NOT_FOUND');
  const missing = await call.get(`${base}/eval-runs/01900000-0000-7000-8000-00000000ffff`).expect(404);
  t.is(missing.body.errorCode, 'AI.EVAL_RUN_NOT_FOUND');
});
