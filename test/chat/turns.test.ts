import anyTest from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import request from 'supertest';
import { z } from 'zod';
import { chatTurns, TURN_LEASE_MS } from '../../app/chat/running-turns.ts';
import type { Timers } from '../../app/core/deps.ts';
import { endTurn, renewLeases } from '../../sql/chat-turns.ts';
import { bearer, chatConfig, chatPath, provider, serve, userMessage } from './support.ts';
import {
  hasText,
  parseStream,
  readUntil,
  post,
  resumePath,
  stopPath,
  storedMessages,
  storedText,
  textOfChunks,
  turnOutcomes,
  until,
  usageCount,
} from './turn-support.ts';

const test = withTestApp(anyTest, { app: { config: chatConfig() } });

test.serial('a client that disconnects mid-turn does not stop it: the whole answer and its usage are saved', async (t) => {
  const peer = await provider(t, () => ({ kind: 'drip', text: 'Hello world', everyMs: 20, usage: { prompt: 7, completion: 11 } }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const auth = await bearer(t);
  const usageBefore = await usageCount(t);
  const abort = new AbortController();
  const { whole } = await readUntil(await post(base, auth, 'leaves', 'hello', 'm-leaves', abort.signal), hasText('He'));
  abort.abort();
  await whole.catch(() => undefined);

  await until(async () => (await turnOutcomes(t, 'leaves'))[0] === 'finished', 'the turn to finish');
  const messages = await storedMessages(t, 'leaves');
  t.deepEqual(
    messages.map((message) => message.role),
    ['user', 'assistant'],
  );
  t.is(storedText(messages[1]), 'Hello world');
  t.is(await usageCount(t), usageBefore + 1);
  t.deepEqual(await peer.closes[0], { finished: true }, 'the provider request ran to its end');
});

test.serial('the resume GET answers a running turn from its first chunk to [DONE], then 204; another user gets 404', async (t) => {
  const peer = await provider(t, () => ({ kind: 'drip', text: 'Resumed answer', everyMs: 20 }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const auth = await bearer(t);
  await readUntil(await post(base, auth, 'resume', 'hello', 'm-resume'), hasText('Re'));

  const resumed = await fetch(`${base}${resumePath('resume')}`, { headers: { authorization: auth } });
  t.is(resumed.status, 200);
  t.is(resumed.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
  const { chunks, done } = parseStream(await resumed.text());
  t.true(done);
  t.is(chunks[0]!.type, 'start');
  t.is(textOfChunks(chunks), 'Resumed answer');
  t.is(chunks.at(-1)!.type, 'finish');

  const after = await fetch(`${base}${resumePath('resume')}`, { headers: { authorization: auth } });
  t.is(after.status, 204);
  const stranger = await fetch(`${base}${resumePath('resume', AGENTS.otherHelper.id)}`, {
    headers: { authorization: await bearer(t, 'owner@other.test') },
  });
  t.is(stranger.status, 404);
  t.is(((await stranger.json()) as { errorCode: string }).errorCode, 'AI.CONVERSATION_NOT_FOUND');
  const unknown = await fetch(`${base}${resumePath('never-was')}`, { headers: { authorization: auth } });
  t.is(unknown.status, 404);
});

test.serial('stop aborts the provider request, saves the answer so far and ends every open stream with finish', async (t) => {
  const peer = await provider(t, () => ({ kind: 'drip', text: 'Hel', everyMs: 10, forever: true }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url, providerTimeoutMs: 30_000 }));
  const auth = await bearer(t);
  const usageBefore = await usageCount(t);
  const original = await readUntil(await post(base, auth, 'stop', 'hello', 'm-stop'), hasText('Hel'));
  const resumedResponse = await fetch(`${base}${resumePath('stop')}`, { headers: { authorization: auth } });
  t.is(resumedResponse.status, 200);
  const resumed = await readUntil(resumedResponse, hasText('Hel'));
  const [originalText, resumedText] = [original.whole, resumed.whole];

  const stop = await fetch(`${base}${stopPath('stop')}`, { method: 'POST', headers: { authorization: auth } });
  t.is(stop.status, 204);
  for (const body of [await originalText, await resumedText]) {
    const { chunks, done } = parseStream(body);
    t.true(done);
    t.is(textOfChunks(chunks), 'Hel');
    t.like(chunks.at(-1), { type: 'finish' });
    t.false(chunks.some((chunk) => chunk.type === 'abort' || chunk.type === 'error'));
  }
  // Saved before the stop answered.
  const messages = await storedMessages(t, 'stop');
  t.is(storedText(messages[1]), 'Hel');
  t.deepEqual(await turnOutcomes(t, 'stop'), ['stopped']);
  t.deepEqual(await peer.closes[0], { finished: false });
  t.is(await usageCount(t), usageBefore, 'the stopped call reported no usage');
  const again = await fetch(`${base}${stopPath('stop')}`, { method: 'POST', headers: { authorization: auth } });
  t.is(again.status, 204, 'stop with nothing running is 204');
});

test.serial(
  'one turn per conversation: a new message while one runs is 409 AI.TURN_IN_PROGRESS; the same message again follows it, then is 409 AI.MESSAGE_ALREADY_SENT',
  async (t) => {
    const peer = await provider(t, () => ({ kind: 'drip', text: 'Only once', everyMs: 20 }));
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    const auth = await bearer(t);
    const first = await post(base, auth, 'one', 'hello', 'm-one');
    const firstText = first.text();

    const other = await post(base, auth, 'one', 'something else', 'm-two');
    t.is(other.status, 409);
    t.like(await other.json(), { errorCode: 'AI.TURN_IN_PROGRESS' });
    const retried = await post(base, auth, 'one', 'hello', 'm-one');
    t.is(retried.status, 200);
    t.is(textOfChunks(parseStream(await retried.text()).chunks), 'Only once');
    t.is(textOfChunks(parseStream(await firstText).chunks), 'Only once');

    const late = await post(base, auth, 'one', 'hello', 'm-one');
    t.is(late.status, 409);
    t.like(await late.json(), { errorCode: 'AI.MESSAGE_ALREADY_SENT' });
    t.is(peer.requests.length, 1);
    t.deepEqual(
      (await storedMessages(t, 'one')).map((message) => message.role),
      ['user', 'assistant'],
    );
    // The conversation is free again: a new message starts the next turn.
    const next = await post(base, auth, 'one', 'and now', 'm-three');
    t.is(next.status, 200);
    await next.text();
    t.is(peer.requests.length, 2);
  },
);

test.serial('twenty concurrent POSTs of one message start one turn; each is answered its stream or AI.MESSAGE_ALREADY_SENT', async (t) => {
  const peer = await provider(t, () => ({ kind: 'drip', text: 'Twenty', everyMs: 30 }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const auth = await bearer(t);
  const answers = await Promise.all(
    Array.from({ length: 20 }, async () => {
      const response = await post(base, auth, 'twenty', 'hello', 'm-twenty');
      const text = await response.text();
      return response.status === 200 ? textOfChunks(parseStream(text).chunks) : (JSON.parse(text) as { errorCode: string }).errorCode;
    }),
  );
  t.is(peer.requests.length, 1);
  t.true(
    answers.every((answer) => answer === 'Twenty' || answer === 'AI.MESSAGE_ALREADY_SENT'),
    answers.join(),
  );
  t.true(answers.filter((answer) => answer === 'Twenty').length >= 1);
  t.deepEqual(
    (await storedMessages(t, 'twenty')).map((message) => message.role),
    ['user', 'assistant'],
  );
  t.is((await turnOutcomes(t, 'twenty')).length, 1);
});

test.serial(
  'a turn past AI_TURN_TIMEOUT_MS against a provider dripping a byte a second stops with an error chunk and saves its answer',
  async (t) => {
    const peer = await provider(t, () => ({ kind: 'drip', text: 'Hel', everyMs: 1000, forever: true }));
    // The turn's deadline is armed on these timers and fired by the test once 'Hel' has streamed;
    // the idle timeout (AI_PROVIDER_TIMEOUT_MS) never fires: a byte comes every second.
    const armed: { run: () => void; ms: number }[] = [];
    const timers: Timers = { setTimeout: (run, ms) => armed.push({ run, ms }), clearTimeout: () => {} };
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url, providerTimeoutMs: 2_000, turnTimeoutMs: 4_500 }), { timers });
    const auth = await bearer(t);
    const { whole } = await readUntil(await post(base, auth, 'drip', 'hello', 'm-drip'), hasText('Hel'));
    t.deepEqual(
      armed.map(({ ms }) => ms),
      [10_000, 4_500],
      "the lease's renewal every 10 s and one deadline of AI_TURN_TIMEOUT_MS, both on the app's timers",
    );
    armed[1]!.run();
    const { chunks, done } = parseStream(await whole);

    t.true(done);
    t.like(chunks.at(-1), { type: 'error', errorText: 'The answer took longer than the 4.5 s limit of a turn and was stopped.' });
    t.is(textOfChunks(chunks), 'Hel');
    t.is(storedText((await storedMessages(t, 'drip'))[1]), 'Hel');
    t.deepEqual(await turnOutcomes(t, 'drip'), ['timed_out']);
    t.deepEqual(await peer.closes[0], { finished: false });
  },
);

test.serial(
  'an instance shutting down answers a new chat POST 503 CORE.SERVICE_UNAVAILABLE with Retry-After, before any model call',
  async (t) => {
    const peer = await provider(t, () => ({ kind: 'text', text: 'never' }));
    const app = t.context.t.rebuild({ config: chatConfig({ gatewayUrl: peer.url }) });
    t.false(await chatTurns(app.deps).drain(0), 'nothing ran');
    const response = await request(app.callback())
      .post(chatPath())
      .set('authorization', await bearer(t))
      .send({ id: 'draining', messages: [userMessage('hello')] });
    t.is(response.status, 503);
    t.is(response.headers['retry-after'], '1');
    t.is(response.body.errorCode, 'CORE.SERVICE_UNAVAILABLE');
    t.is(peer.requests.length, 0);
    t.deepEqual(await turnOutcomes(t, 'draining'), []);
  },
);

test.serial(
  'a running turn whose instance died (lease run out) frees its conversation: the next message is answered, the old turn ends lost',
  async (t) => {
    const peer = await provider(t, () => ({ kind: 'text', text: 'After the crash' }));
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    const auth = await bearer(t);
    await t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO chat_turns (id, organization_id, agent_id, user_id, client_conversation_id, client_message_id, started_at, lease_until)
    VALUES (${uuidv7()}, ${ORGANIZATIONS.demoAgency.id}, ${AGENTS.support.id}, ${USERS.owner.id}, 'crashed', 'm-old',
            now() - interval '2 minutes', now() - interval '1 second')`);
    const resumed = await fetch(`${base}${resumePath('crashed')}`, { headers: { authorization: auth } });
    t.is(resumed.status, 404, 'no conversation and no live turn');
    const response = await post(base, auth, 'crashed', 'hello again', 'm-new');
    t.is(response.status, 200);
    t.is(textOfChunks(parseStream(await response.text()).chunks), 'After the crash');
    t.deepEqual(await turnOutcomes(t, 'crashed'), ['lost', 'finished']);
    const stranger = await fetch(`${base}${stopPath('crashed')}`, {
      method: 'POST',
      headers: { authorization: await bearer(t, 'owner@other.test') },
    });
    t.is(stranger.status, 404, "another agency's stop is 404");
  },
);

test.serial('the running instance renews the lease of its turns; an ended turn is left as it is', async (t) => {
  const [running, ended] = [uuidv7(), uuidv7()];
  for (const [id, chat] of [
    [running, 'lease-running'],
    [ended, 'lease-ended'],
  ] as const)
    await t.context.t.db.pool.query(sql.unsafe`
      INSERT INTO chat_turns (id, organization_id, agent_id, user_id, client_conversation_id, started_at, lease_until)
      VALUES (${id}, ${ORGANIZATIONS.demoAgency.id}, ${AGENTS.support.id}, ${USERS.owner.id}, ${chat}, now(), now() + interval '1 second')`);
  await endTurn(t.context.t.db.pool, ended, 'finished', new Date());
  await renewLeases(t.context.t.db.pool, [running, ended], TURN_LEASE_MS);
  const leases = await t.context.t.db.pool.any(sql.type(z.strictObject({ id: z.string(), seconds: z.number() }))`
    SELECT id, extract(epoch FROM lease_until - now())::float8 AS seconds FROM chat_turns WHERE id IN (${running}, ${ended})`);
  const seconds = new Map(leases.map((row) => [row.id, row.seconds]));
  t.true(seconds.get(running)! > 25, String(seconds.get(running)));
  t.true(seconds.get(ended)! < 2, String(seconds.get(ended)));
});
