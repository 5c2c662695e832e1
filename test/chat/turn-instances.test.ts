import anyTest from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import type { Config } from '../../app/config.ts';
import { chatTurns } from '../../app/chat/running-turns.ts';
import { withTestApp } from '../helpers/app.ts';
import { bearer, chatConfig, provider, type T } from './support.ts';
import {
  hasText,
  parseStream,
  post,
  readUntil,
  resumePath,
  stopPath,
  storedMessages,
  storedText,
  textOfChunks,
  turnOutcomes,
  until,
} from './turn-support.ts';

// Two instances of the service in one process: two apps over the file's database, each with its
// own Redis connections (as app/server.ts makes them), sharing one Redis server.
const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const SHARED_REDIS = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** One instance: an app with its own Redis client (the server's options: fail fast, no offline queue). */
async function instance(t: T, config: Config, redisUrl: string): Promise<{ base: string; ready: () => boolean }> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', () => {});
  await until(() => redis.status === 'ready', 'redis to connect');
  const app = t.context.t.rebuild({ config, redis });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  // As app/server.ts does at start: the registry (and its Redis subscriber) exists before the first turn.
  await until(() => chatTurns(app.deps).sharing, 'the turn registry to subscribe');
  t.teardown(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await chatTurns(app.deps).close();
    redis.disconnect();
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ready: () => redis.status === 'ready' && chatTurns(app.deps).sharing,
  };
}

/** A private redis-server on a free port (the shared one is never stopped). */
async function privateRedis(t: T, port?: number): Promise<{ url: string; port: number; stop(): Promise<void> }> {
  const chosen = port ?? (await freePort());
  const child: ChildProcess = spawn('redis-server', ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
  };
  t.teardown(stop);
  const probe = new Redis(`redis://127.0.0.1:${chosen}`, { lazyConnect: true, retryStrategy: () => 20 });
  probe.on('error', () => {});
  await probe.connect().catch(() => {});
  await until(() => probe.status === 'ready', 'the private redis-server to start');
  probe.disconnect();
  return { url: `redis://127.0.0.1:${chosen}`, port: chosen, stop };
}

test.serial(
  'with two instances sharing PostgreSQL and Redis, the other instance resumes, refuses a second turn, follows a retry and stops the turn',
  async (t) => {
    const peer = await provider(t, () => ({ kind: 'drip', text: 'Hello from the first instance', everyMs: 15, forever: true }));
    const config = chatConfig({ gatewayUrl: peer.url, providerTimeoutMs: 30_000 });
    const one = await instance(t, config, SHARED_REDIS);
    const two = await instance(t, config, SHARED_REDIS);
    const [first, second] = [one.base, two.base];
    const auth = await bearer(t);
    const chat = `two-${Date.now()}`;

    const original = await readUntil(await post(first, auth, chat, 'hello', 'm-1'), hasText('Hello'));
    const resumedResponse = await fetch(`${second}${resumePath(chat)}`, { headers: { authorization: auth } });
    t.is(resumedResponse.status, 200);
    const resumed = await readUntil(resumedResponse, hasText('Hello from the first instance'));

    const other = await post(second, auth, chat, 'a second question', 'm-2');
    t.is(other.status, 409);
    t.like(await other.json(), { errorCode: 'AI.TURN_IN_PROGRESS' });
    const retried = await readUntil(await post(second, auth, chat, 'hello', 'm-1'), hasText('Hello from the first instance'));

    const stop = await fetch(`${second}${stopPath(chat)}`, { method: 'POST', headers: { authorization: auth } });
    t.is(stop.status, 204);
    for (const whole of [original.whole, resumed.whole, retried.whole]) {
      const { chunks, done } = parseStream(await whole);
      t.true(done);
      t.is(chunks[0]!.type, 'start', 'from the first chunk');
      t.is(textOfChunks(chunks), 'Hello from the first instance');
      t.like(chunks.at(-1), { type: 'finish' });
    }
    t.deepEqual(await turnOutcomes(t, chat), ['stopped']);
    t.is(storedText((await storedMessages(t, chat))[1]), 'Hello from the first instance');
    t.is(peer.requests.length, 1);
    const after = await fetch(`${second}${resumePath(chat)}`, { headers: { authorization: auth } });
    t.is(after.status, 204);
  },
);

test.serial(
  'Redis lost mid-turn: the turn completes and is saved; resume elsewhere is 503 AI.STREAM_UNAVAILABLE until Redis is back',
  async (t) => {
    const redis = await privateRedis(t);
    const peer = await provider(t, () => ({ kind: 'drip', text: 'An answer that outlives Redis.', everyMs: 40 }));
    const config = chatConfig({ gatewayUrl: peer.url, providerTimeoutMs: 30_000 });
    const one = await instance(t, config, redis.url);
    const two = await instance(t, config, redis.url);
    const [first, second] = [one.base, two.base];
    const auth = await bearer(t);

    const original = await readUntil(await post(first, auth, 'no-redis', 'hello', 'm-1'), hasText('An'));
    await redis.stop();
    const resumed = await fetch(`${second}${resumePath('no-redis')}`, { headers: { authorization: auth } });
    t.is(resumed.status, 503);
    t.is(resumed.headers.get('retry-after'), '1');
    t.like(await resumed.json(), { statusCode: 503, errorCode: 'AI.STREAM_UNAVAILABLE', metadata: { retryAfterSeconds: 1 } });

    const { chunks, done } = parseStream(await original.whole);
    t.true(done);
    t.is(textOfChunks(chunks), 'An answer that outlives Redis.');
    t.like(chunks.at(-1), { type: 'finish' });
    t.deepEqual(await turnOutcomes(t, 'no-redis'), ['finished']);
    t.is(storedText((await storedMessages(t, 'no-redis'))[1]), 'An answer that outlives Redis.');

    // Redis back on its port: the next turn is resumable from the other instance again.
    await privateRedis(t, redis.port);
    await until(() => one.ready() && two.ready(), 'both instances to reconnect', 15_000);
    const next = await readUntil(await post(first, auth, 'no-redis', 'again', 'm-2'), hasText('An'));
    const back = await fetch(`${second}${resumePath('no-redis')}`, { headers: { authorization: auth } });
    t.is(back.status, 200);
    t.is(textOfChunks(parseStream(await back.text()).chunks), 'An answer that outlives Redis.');
    await next.whole;
  },
);

test.serial('a turn whose instance died: resume is 503 AI.STREAM_UNAVAILABLE while its lease holds, 204 once it ran out', async (t) => {
  const peer = await provider(t, () => ({ kind: 'text', text: 'Before the crash' }));
  const { base } = await instance(t, chatConfig({ gatewayUrl: peer.url }), SHARED_REDIS);
  const auth = await bearer(t);
  const chat = `dead-${Date.now()}`;
  await (await post(base, auth, chat, 'hello', 'm-1')).text();
  // What a killed instance leaves: a running claim with a live lease and its shared sentinel.
  const turnId = uuidv7();
  await t.context.t.db.pool.query(sql.unsafe`
      INSERT INTO chat_turns (id, organization_id, agent_id, user_id, client_conversation_id, client_message_id, started_at, lease_until)
      VALUES (${turnId}, ${ORGANIZATIONS.demoAgency.id}, ${AGENTS.support.id}, ${USERS.owner.id}, ${chat}, 'm-2', now(), now() + interval '30 seconds')`);
  const redis = new Redis(SHARED_REDIS);
  t.teardown(() => redis.disconnect());
  await redis.set(`chat-turn:rs:sentinel:${turnId}`, '1', 'EX', 60);

  const resumed = await fetch(`${base}${resumePath(chat)}`, { headers: { authorization: auth } });
  t.is(resumed.status, 503);
  t.like(await resumed.json(), { errorCode: 'AI.STREAM_UNAVAILABLE' });
  await t.context.t.db.pool.query(sql.unsafe`UPDATE chat_turns SET lease_until = now() - interval '1 second' WHERE id = ${turnId}`);
  const after = await fetch(`${base}${resumePath(chat)}`, { headers: { authorization: auth } });
  t.is(after.status, 204);
});

test.serial('twenty concurrent POSTs of one message spread over two instances start one turn', async (t) => {
  const peer = await provider(t, () => ({ kind: 'drip', text: 'Only one turn', everyMs: 30 }));
  const config = chatConfig({ gatewayUrl: peer.url });
  const one = await instance(t, config, SHARED_REDIS);
  const two = await instance(t, config, SHARED_REDIS);
  const auth = await bearer(t);
  const chat = `spread-${Date.now()}`;
  const answers = await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      const response = await post(i % 2 ? one.base : two.base, auth, chat, 'hello', 'm-spread');
      const text = await response.text();
      return response.status === 200 ? textOfChunks(parseStream(text).chunks) : (JSON.parse(text) as { errorCode: string }).errorCode;
    }),
  );
  t.is(peer.requests.length, 1);
  t.true(
    answers.every((answer) => answer === 'Only one turn' || answer === 'AI.MESSAGE_ALREADY_SENT'),
    answers.join(),
  );
  t.true(answers.filter((answer) => answer === 'Only one turn').length >= 2, answers.join());
  t.deepEqual(await turnOutcomes(t, chat), ['finished']);
  t.deepEqual(
    (await storedMessages(t, chat)).map((message) => message.role),
    ['user', 'assistant'],
  );
});
