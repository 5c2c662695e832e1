import anyTest from 'ava';
import { randomInt } from 'node:crypto';
import request from 'supertest';
import { withTestApp } from '../helpers/app.ts';
import { putChannel, SHOP } from './support.ts';

const test = withTestApp(anyTest, { rateLimits: true });

/** A /56 of the documentation range of its own per run, so runs never share a bucket in Redis. */
const prefix56 = () => `2001:db8:${randomInt(0, 0xffff).toString(16)}:${randomInt(0, 0xff).toString(16).padStart(2, '0')}`;

test('sessions are limited per address: 20 a minute from one IPv6 /56 whatever its addresses, then 429; another /56 still opens', async (t) => {
  const now = new Date('2026-11-28T10:00:00.000Z');
  const server = t.context.t.rebuild({ clock: () => now }).callback();
  const { publishableKey } = await putChannel(t);
  const net = prefix56();
  const statuses: number[] = [];
  for (let i = 0; i < 25; i++) {
    // Different addresses inside the same /56 (its last 72 bits vary).
    const address = `${net}${((i * 37) % 256).toString(16).padStart(2, '0')}:${i.toString(16)}::${(i + 1).toString(16)}`;
    const response = await request(server)
      .post('/api/public/sessions')
      .set('x-forwarded-for', address)
      .set('origin', SHOP)
      .send({ publishableKey });
    statuses.push(response.status);
  }
  t.deepEqual(statuses.slice(0, 20), new Array<number>(20).fill(201));
  t.deepEqual(statuses.slice(20), new Array<number>(5).fill(429));
  const elsewhere = await request(server)
    .post('/api/public/sessions')
    .set('x-forwarded-for', `${prefix56()}00::1`)
    .set('origin', SHOP)
    .send({ publishableKey });
  t.is(elsewhere.status, 201);
});

test('the public chat is limited per end user: the eleventh message in a minute is 429 whatever the address', async (t) => {
  const now = new Date('2026-11-28T10:00:00.000Z');
  const server = t.context.t.rebuild({ clock: () => now }).callback();
  const { publishableKey } = await putChannel(t, { endUserMessagesPerDay: 100 });
  const session = await request(server)
    .post('/api/public/sessions')
    .set('x-forwarded-for', `${prefix56()}00::9`)
    .set('origin', SHOP)
    .send({ publishableKey });
  const token = session.body.sessionToken as string;
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) {
    // A body the route refuses (400) still counts: the limiter runs first.
    const response = await request(server)
      .post('/api/public/chat')
      .set('x-forwarded-for', `${prefix56()}00::${i + 1}`)
      .set('authorization', `Bearer ${token}`)
      .send({ id: `limited-${i}`, messages: [] });
    statuses.push(response.status);
  }
  t.deepEqual(statuses.slice(0, 10), new Array<number>(10).fill(400));
  t.is(statuses[10], 429);
});

test('a flood of anonymous sessions from one /56 opens 20 a minute, however long it lasts', async (t) => {
  let now = new Date('2026-11-28T11:00:00.000Z');
  const server = t.context.t.rebuild({ clock: () => now }).callback();
  const { publishableKey } = await putChannel(t);
  const net = prefix56();
  const opened: number[] = [];
  // One attempt a second for five minutes, each from another address of the /56: at this rate
  // 10,000 attempts take 10,000 s and open 20 × ⌈10,000 / 60⌉ = 3,340 sessions at most.
  for (let second = 0; second < 300; second++) {
    now = new Date(Date.parse('2026-11-28T11:00:00.000Z') + second * 1000);
    const response = await request(server)
      .post('/api/public/sessions')
      .set('x-forwarded-for', `${net}${(second % 256).toString(16).padStart(2, '0')}:${second.toString(16)}::1`)
      .set('origin', SHOP)
      .send({ publishableKey });
    if (response.status === 201) opened.push(second);
    else t.is(response.status, 429);
  }
  t.is(opened.length, 100);
  t.true(opened.every((second) => second % 60 < 20));
});

test('public reads are limited per end user: 120 a minute for the list, a conversation and the resume GET, then 429; stop 30 a minute', async (t) => {
  const now = new Date('2026-11-28T12:00:00.000Z');
  const server = t.context.t.rebuild({ clock: () => now }).callback();
  const { publishableKey } = await putChannel(t);
  const open = async () =>
    (
      await request(server)
        .post('/api/public/sessions')
        .set('x-forwarded-for', `${prefix56()}00::7`)
        .set('origin', SHOP)
        .send({ publishableKey })
    ).body.sessionToken as string;
  const token = await open();
  const spend = async (method: 'get' | 'post', path: string, times: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < times; i++) {
      // Another address each time: the window is the end user's.
      const agent = request(server);
      const response = await (method === 'get' ? agent.get(path) : agent.post(path))
        .set('x-forwarded-for', `${prefix56()}00::${i + 1}`)
        .set('authorization', `Bearer ${token}`);
      statuses.push(response.status);
    }
    return statuses;
  };
  for (const [path, answered] of [
    ['/api/public/conversations', 200],
    ['/api/public/conversations/none-yet', 404],
    ['/api/public/chat/none-yet/stream', 404],
  ] as const) {
    const statuses = await spend('get', path, 121);
    t.deepEqual(statuses.slice(0, 120), new Array<number>(120).fill(answered), path);
    t.is(statuses[120], 429, path);
  }
  const stops = await spend('post', '/api/public/chat/none-yet/stop', 31);
  t.deepEqual(stops.slice(0, 30), new Array<number>(30).fill(404));
  t.is(stops[30], 429);
  // Another end user has windows of their own.
  const other = await open();
  const list = await request(server).get('/api/public/conversations').set('authorization', `Bearer ${other}`);
  t.is(list.status, 200);
});
