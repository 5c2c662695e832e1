import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest, { type ExecutionContext } from 'ava';
import { pino } from 'pino';
import { sql } from 'slonik';
import request from 'supertest';
import { OutboxWorker } from '../../app/notifications/delivery/outbox-worker.ts';
import { logSender } from '../../app/notifications/delivery/log-sender.ts';
import { smsHttpSender } from '../../app/notifications/delivery/sms-http-sender.ts';
import { findDeliveryState, listOutboxMessagesTo } from '../../sql/notification-outbox.ts';
import { CapturedLogs, testConfig, withTestApp, type TestContext } from '../helpers/app.ts';
import { register } from '../identity/principals.ts';

const test = withTestApp(anyTest);

test.beforeEach(async (t) => {
  await t.context.t.db.pool.query(sql.unsafe`UPDATE notification_outbox SET status = 'dead' WHERE status = 'pending'`);
});

type Call = { headers: IncomingHttpHeaders; body: { to: string; text: string; messageId: string } };

/** A fake SMS provider on loopback answering each call with the next status of `statuses`. */
async function fakeProvider(statuses: number[]) {
  const calls: Call[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      calls.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call['body'] });
      res.statusCode = statuses.shift() ?? 202;
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`;
  return { url, calls, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function queueSms(t: ExecutionContext<TestContext>, to: string, message: string) {
  const development = request(t.context.t.rebuild({ config: testConfig({ nodeEnv: 'development' }) }).callback());
  const response = await development.post('/api/notifications/sms/test').send({ to, message }).expect(202);
  return (response.body as { messageId: string }).messageId;
}

test.serial('an SMS goes to the HTTP provider with the key and the same idempotency key on every attempt', async (t) => {
  const provider = await fakeProvider([503, 202]);
  t.teardown(() => provider.close());
  let now = new Date(Date.now() + 1_000);
  const worker = new OutboxWorker({
    db: t.context.t.db.pool,
    keyring: t.context.t.app.deps.config.credentialsKeyring,
    senders: { sms: smsHttpSender({ url: provider.url, key: 'provider-key-1' }) },
    logger: pino({ level: 'silent' }),
    clock: () => now,
  });
  const id = await queueSms(t, '+34600111001', 'hello from the outbox');

  t.deepEqual(await worker.runOnce(), { sent: 0, retried: 1, dead: 0, jobs: 0 });
  t.like(await findDeliveryState(t.context.t.db.pool, id), { status: 'pending', lastError: 'sms-http: HTTP 503' });
  now = new Date(now.getTime() + 10_000);
  t.deepEqual(await worker.runOnce(), { sent: 1, retried: 0, dead: 0, jobs: 0 });

  t.is(provider.calls.length, 2);
  for (const call of provider.calls) {
    t.is(call.headers.authorization, 'Bearer provider-key-1');
    t.is(call.headers['idempotency-key'], id);
    t.deepEqual(call.body, { to: '+34600111001', text: 'hello from the outbox', messageId: id });
  }
  t.like(await findDeliveryState(t.context.t.db.pool, id), { status: 'sent', attempts: 2 });
});

test.serial('a provider that rejects the request (422) dead-letters the SMS without retrying', async (t) => {
  const provider = await fakeProvider([422]);
  t.teardown(() => provider.close());
  const worker = new OutboxWorker({
    db: t.context.t.db.pool,
    keyring: t.context.t.app.deps.config.credentialsKeyring,
    senders: { sms: smsHttpSender({ url: provider.url, key: 'k' }) },
    logger: pino({ level: 'silent' }),
    clock: () => new Date(Date.now() + 1_000),
  });
  const id = await queueSms(t, '+34600111002', 'will be refused');
  t.deepEqual(await worker.drain(), { sent: 0, retried: 0, dead: 1, jobs: 0 });
  t.like(await findDeliveryState(t.context.t.db.pool, id), { status: 'dead', lastError: 'sms-http: HTTP 422' });
});

test.serial('in development without SMTP_URL the email is written to the log (code included) and never to a response', async (t) => {
  const logs = new CapturedLogs();
  const worker = new OutboxWorker({
    db: t.context.t.db.pool,
    keyring: t.context.t.app.deps.config.credentialsKeyring,
    senders: { email: logSender(pino({ level: 'info' }, logs.stream), 'email') },
    logger: pino({ level: 'silent' }),
    clock: () => new Date(Date.now() + 1_000),
  });
  const registered = await register(t, 'user', 'dev-log@example.com').expect(201);
  t.deepEqual(await worker.drain(), { sent: 1, retried: 0, dead: 0, jobs: 0 });
  const line = logs.entries.find((entry) => entry.template === 'email-verification');
  const code = /(?<!\d)\d{6}(?!\d)/.exec(String(line?.msg))?.[0];
  t.truthy(code);
  t.false(JSON.stringify(registered.body).includes(code!));
  await t.context.t.http().post('/api/identity/auth/user/verify-email').send({ email: 'dev-log@example.com', code }).expect(200);
  const [message] = await listOutboxMessagesTo(t.context.t.db.pool, 'dev-log@example.com');
  t.like(await findDeliveryState(t.context.t.db.pool, message!.id), { status: 'sent' });
});
