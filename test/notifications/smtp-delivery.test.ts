import anyTest, { type ExecutionContext } from 'ava';
import { pino } from 'pino';
import { sql } from 'slonik';
import { OutboxWorker, type OutboxWorkerOptions } from '../../app/notifications/delivery/outbox-worker.ts';
import { smtpSender } from '../../app/notifications/delivery/smtp-sender.ts';
import { openMessageBody } from '../../app/notifications/sealing.ts';
import { claimDueMessages, findDeliveryState, listOutboxMessagesTo } from '../../sql/notification-outbox.ts';
import { CapturedLogs, withTestApp, type TestContext } from '../helpers/app.ts';
import { register } from '../identity/principals.ts';
import { SmtpPeer, silentServer } from './smtp-peer.ts';

const test = withTestApp(anyTest);
type T = ExecutionContext<TestContext>;

const SIX_DIGITS = /(?<!\d)\d{6}(?!\d)/g;

/** Each test starts from an outbox with nothing due (earlier tests' leftovers are set aside). */
test.beforeEach(async (t) => {
  await t.context.t.db.pool.query(sql.unsafe`UPDATE notification_outbox SET status = 'dead' WHERE status = 'pending'`);
});

function workerFor(t: T, smtpUrl: string, extra: Partial<OutboxWorkerOptions> = {}) {
  const logs = new CapturedLogs();
  const worker = new OutboxWorker({
    db: t.context.t.db.pool,
    keyring: t.context.t.app.deps.config.credentialsKeyring,
    senders: { email: smtpSender({ url: smtpUrl, from: 'no-reply@test.example', timeoutMs: 500 }) },
    logger: pino({ level: 'info' }, logs.stream),
    ...extra,
  });
  return { worker, logs };
}

async function outboxIdOf(t: T, email: string) {
  const [message] = await listOutboxMessagesTo(t.context.t.db.pool, email);
  if (!message) throw new Error(`nothing queued for ${email}`);
  return message.id;
}

test.serial('a registration email reaches the SMTP server with the code as the only six-digit run, and the code verifies', async (t) => {
  const peer = new SmtpPeer();
  t.teardown(() => peer.close());
  const { worker, logs } = workerFor(t, await peer.start());
  await register(t, 'user', 'mail-1@example.com').expect(201);
  const id = await outboxIdOf(t, 'mail-1@example.com');

  t.deepEqual(await worker.drain(), { sent: 1, retried: 0, dead: 0, jobs: 0 });

  t.is(peer.received.length, 1);
  const mail = peer.received[0]!;
  t.deepEqual(mail.to, ['mail-1@example.com']);
  t.is(mail.from, 'no-reply@test.example');
  t.is(mail.subject, 'Your verification code');
  t.is(mail.messageId, `<${id}@test.example>`);
  const runs = mail.text.match(SIX_DIGITS) ?? [];
  t.is(runs.length, 1);
  await t.context.t.http().post('/api/identity/auth/user/verify-email').send({ email: 'mail-1@example.com', code: runs[0] }).expect(200);
  t.like(await findDeliveryState(t.context.t.db.pool, id), { status: 'sent', attempts: 1, lastError: null });
  t.false(logs.text().includes(runs[0]!), 'the worker never logs the body');
});

test.serial('a server that answers 451 gets the message again later, with backoff, until it is dead-lettered', async (t) => {
  const peer = new SmtpPeer();
  t.teardown(() => peer.close());
  let now = new Date('2026-11-23T10:00:00.000Z');
  const { worker } = workerFor(t, await peer.start(), { clock: () => now, maxAttempts: 3, baseDelayMs: 1_000 });
  await register(t, 'user', 'mail-2@example.com').expect(201);
  const id = await outboxIdOf(t, 'mail-2@example.com');
  await t.context.t.db.pool.query(sql.unsafe`UPDATE notification_outbox SET next_attempt_at = ${sql.timestamp(now)} WHERE id = ${id}`);
  peer.refuseWith = 451;

  t.deepEqual(await worker.runOnce(), { sent: 0, retried: 1, dead: 0, jobs: 0 });
  const first = await findDeliveryState(t.context.t.db.pool, id);
  t.like(first, { status: 'pending', attempts: 1, lastError: 'smtp: SMTP 451' });
  const wait = Date.parse(first!.nextAttemptAt) - now.getTime();
  t.true(wait >= 500 && wait <= 1_000, `first retry after 0.5-1 s, was ${wait} ms`);
  t.deepEqual(await worker.runOnce(), { sent: 0, retried: 0, dead: 0, jobs: 0 }, 'not due yet');

  now = new Date(now.getTime() + 1_000);
  t.deepEqual(await worker.runOnce(), { sent: 0, retried: 1, dead: 0, jobs: 0 });
  const second = await findDeliveryState(t.context.t.db.pool, id);
  const secondWait = Date.parse(second!.nextAttemptAt) - now.getTime();
  t.true(secondWait >= 1_000 && secondWait <= 2_000, `second retry after 1-2 s, was ${secondWait} ms`);

  now = new Date(now.getTime() + 2_000);
  t.deepEqual(await worker.runOnce(), { sent: 0, retried: 0, dead: 1, jobs: 0 });
  t.like(await findDeliveryState(t.context.t.db.pool, id), { status: 'dead', attempts: 3 });
  now = new Date(now.getTime() + 3_600_000);
  peer.refuseWith = undefined;
  t.deepEqual(await worker.runOnce(), { sent: 0, retried: 0, dead: 0, jobs: 0 }, 'a dead message is never claimed again');
  t.is(peer.received.length, 0);
});

test.serial('a server that refuses the recipient for good (550) dead-letters the message at once', async (t) => {
  const peer = new SmtpPeer();
  t.teardown(() => peer.close());
  const { worker, logs } = workerFor(t, await peer.start());
  peer.refuseWith = 550;
  await register(t, 'user', 'mail-3@example.com').expect(201);
  const id = await outboxIdOf(t, 'mail-3@example.com');
  t.deepEqual(await worker.drain(), { sent: 0, retried: 0, dead: 1, jobs: 0 });
  t.like(await findDeliveryState(t.context.t.db.pool, id), { status: 'dead', attempts: 1, lastError: 'smtp: SMTP 550' });
  t.like(
    logs.entries.find((entry) => entry.msg === 'notification dead-lettered'),
    { messageId: id, to: 'm***@example.com' },
  );
});

test.serial('a server that never answers times out and the message waits for a retry', async (t) => {
  const silent = await silentServer();
  t.teardown(() => silent.close());
  const { worker } = workerFor(t, silent.url);
  await register(t, 'user', 'mail-4@example.com').expect(201);
  const id = await outboxIdOf(t, 'mail-4@example.com');
  t.deepEqual(await worker.runOnce(), { sent: 0, retried: 1, dead: 0, jobs: 0 });
  const state = await findDeliveryState(t.context.t.db.pool, id);
  t.like(state, { status: 'pending', attempts: 1 });
  t.regex(state!.lastError ?? '', /^smtp: (ETIMEDOUT|ECONNECTION|ESOCKET)/);
});

test.serial('a worker that dies between sending and marking sent: the message is sent again with the same Message-ID', async (t) => {
  const peer = new SmtpPeer();
  t.teardown(() => peer.close());
  const url = await peer.start();
  await register(t, 'user', 'mail-5@example.com').expect(201);
  const id = await outboxIdOf(t, 'mail-5@example.com');
  let now = new Date(Date.now() + 1_000);

  // The first worker claims the message and hands it to SMTP, then "crashes": it never marks it sent.
  const [claimed] = await claimDueMessages(t.context.t.db.pool, {
    now,
    leaseUntil: new Date(now.getTime() + 60_000),
    limit: 10,
    channels: ['email'],
  });
  t.is(claimed?.id, id);
  const body = openMessageBody(t.context.t.app.deps.config.credentialsKeyring, id, claimed!.sealedBody);
  await smtpSender({ url, from: 'no-reply@test.example' }).send({
    id,
    channel: 'email',
    to: claimed!.recipient,
    template: claimed!.template,
    subject: body.subject,
    text: body.text,
  });

  const { worker } = workerFor(t, url, { clock: () => now });
  t.deepEqual(await worker.runOnce(), { sent: 0, retried: 0, dead: 0, jobs: 0 }, 'nobody takes it while the lease lasts');
  now = new Date(now.getTime() + 60_001);
  t.deepEqual(await worker.runOnce(), { sent: 1, retried: 0, dead: 0, jobs: 0 });

  t.is(peer.received.length, 2);
  t.is(peer.received[0]!.messageId, `<${id}@test.example>`);
  t.is(peer.received[1]!.messageId, peer.received[0]!.messageId, 'a receiver can drop the duplicate');
  t.like(await findDeliveryState(t.context.t.db.pool, id), { status: 'sent', attempts: 2 });
});

test.serial('two workers draining together send every message exactly once', async (t) => {
  const peer = new SmtpPeer();
  t.teardown(() => peer.close());
  const url = await peer.start();
  const emails = Array.from({ length: 12 }, (_, i) => `mail-many-${i}@example.com`);
  for (const email of emails) await register(t, 'client', email).expect(201);
  const a = workerFor(t, url, { batchSize: 3 }).worker;
  const b = workerFor(t, url, { batchSize: 3 }).worker;
  const [ra, rb] = await Promise.all([a.drain(), b.drain()]);
  t.is(ra.sent + rb.sent, 12);
  t.deepEqual(peer.received.flatMap((mail) => mail.to).sort(), [...emails].sort());
});
