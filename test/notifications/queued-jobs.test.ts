import anyTest, { type ExecutionContext } from 'ava';
import { pino } from 'pino';
import { requestPasswordReset } from '../../app/identity/password-reset.ts';
import { OutboxWorker, type OutboxJob } from '../../app/notifications/delivery/outbox-worker.ts';
import type { Delivery } from '../../app/notifications/delivery/sender.ts';
import { findDeliveryState, listOutboxMessagesTo } from '../../sql/notification-outbox.ts';
import { CapturedLogs, withTestApp, type TestContext } from '../helpers/app.ts';

const test = withTestApp(anyTest);

function workerWith(t: ExecutionContext<TestContext>, jobs?: Record<string, OutboxJob>) {
  const sent: Delivery[] = [];
  const worker = new OutboxWorker({
    db: t.context.t.app.deps.db,
    keyring: t.context.t.app.deps.config.credentialsKeyring,
    senders: { email: { name: 'record', send: async (delivery) => void sent.push(delivery) } },
    logger: pino({ level: 'info' }, new CapturedLogs().stream),
    ...(jobs ? { jobs } : {}),
  });
  return { worker, sent };
}

// Serial: each drains the whole outbox and counts what it did.
test.serial('a queued job is never handed to a sender, by a worker that does not run it', async (t) => {
  await requestPasswordReset(t.context.t.app.deps, 'user', 'job-nobody@jobs.test');
  const [queued] = await listOutboxMessagesTo(t.context.t.db.pool, 'job-nobody@jobs.test');
  const { worker, sent } = workerWith(t);
  t.deepEqual(await worker.runOnce(), { sent: 0, retried: 1, dead: 0, jobs: 0 });
  t.deepEqual(sent, []);
  t.like(await findDeliveryState(t.context.t.db.pool, queued!.id), {
    status: 'pending',
    lastError: 'no worker here runs job:password-reset',
  });
});

test.serial('a job that fails is rolled back, keeps its row and is retried later, and sends nothing', async (t) => {
  await requestPasswordReset(t.context.t.app.deps, 'client', 'job-fails@jobs.test');
  const [queued] = await listOutboxMessagesTo(t.context.t.db.pool, 'job-fails@jobs.test');
  const seen: { recipient: string; payload: string }[] = [];
  const failing = workerWith(t, {
    'job:password-reset': async (_tx, job) => {
      seen.push(job);
      throw new Error('boom');
    },
  });
  t.like(await failing.worker.runOnce(), { retried: 1, jobs: 0 });
  t.like(await findDeliveryState(t.context.t.db.pool, queued!.id), { status: 'pending', lastError: 'job:password-reset: failed' });
  t.deepEqual(seen.at(-1), { recipient: 'job-fails@jobs.test', payload: 'client' });
  t.deepEqual(failing.sent, []);
});
