import anyTest, { type ExecutionContext } from 'ava';
import { pino } from 'pino';
import { sql } from 'slonik';
import { OutboxWorker } from '../../app/notifications/delivery/outbox-worker.ts';
import { smtpSender } from '../../app/notifications/delivery/smtp-sender.ts';
import { findBuiltinTool } from '../../app/tools/builtins.ts';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { CapturedLogs, testConfig, withTestApp, type TestContext } from '../helpers/app.ts';
import { SmtpPeer } from '../notifications/smtp-peer.ts';

const test = withTestApp(anyTest);
type T = ExecutionContext<TestContext>;

const scope = { agencyId: ORGANIZATIONS.demoAgency.id, agentId: AGENTS.support.id, userId: USERS.member.id };

/** Runs `send_email` as the chat would, with the service's clock at `now`. */
function send(t: T, input: Record<string, unknown>, now = new Date('2026-03-02T10:00:00Z')) {
  const config = { ...testConfig(), notifications: { ...testConfig().notifications, smtpUrl: 'smtp://127.0.0.1:1' } };
  const deps = t.context.t.rebuild({ config, clock: () => now }).deps;
  return findBuiltinTool('send_email')!.execute(config)!({ deps, scope, input, signal: new AbortController().signal });
}

test.beforeEach(async (t) => {
  await t.context.t.db.pool.query(sql.unsafe`UPDATE notification_outbox SET status = 'dead' WHERE status = 'pending'`);
  await t.context.t.db.pool.query(sql.unsafe`DELETE FROM agent_sent_emails`);
});

test.serial(
  'send_email queues one message per recipient that the SMTP server receives from MAIL_FROM with Reply-To the caller',
  async (t) => {
    const peer = new SmtpPeer();
    t.teardown(() => peer.close());
    const url = await peer.start();
    const answer = await send(t, { to: ['Ana@Example.com', 'bob@example.org'], subject: 'Your refund', text: 'It is on its way.\nBest,' });
    t.deepEqual(answer, { queued: 2, to: ['ana@example.com', 'bob@example.org'], replyTo: USERS.member.email });
    const worker = new OutboxWorker({
      db: t.context.t.db.pool,
      keyring: t.context.t.app.deps.config.credentialsKeyring,
      senders: { email: smtpSender({ url, from: 'no-reply@test.example', timeoutMs: 1000 }) },
      logger: pino({ level: 'info' }, new CapturedLogs().stream),
    });
    t.like(await worker.drain(), { sent: 2, dead: 0 });
    t.deepEqual(peer.received.map((mail) => mail.to).sort(), [['ana@example.com'], ['bob@example.org']]);
    for (const mail of peer.received) {
      t.is(mail.from, 'no-reply@test.example');
      t.is(mail.subject, 'Your refund');
      t.regex(mail.raw, new RegExp(`^Reply-To: ${USERS.member.email}\\r?$`, 'm'));
      t.regex(mail.text, /It is on its way\./);
    }
  },
);

test.serial(
  'bad input is refused before anything is queued: header injection, too many recipients, bad addresses, empty text',
  async (t) => {
    const ok = { to: ['a@example.com'], subject: 'Hi', text: 'Hello' };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...ok, subject: 'Hi\r\nBcc: victim@example.com' }, /subject must be one line/],
      [{ ...ok, to: ['a@example.com\r\nBcc: v@example.com'] }, /is not an email address/],
      [{ ...ok, to: ['a@example.com, b@example.com'] }, /is not an email address/],
      [{ ...ok, to: ['Name <a@example.com>'] }, /is not an email address/],
      [{ ...ok, to: Array.from({ length: 11 }, (_, i) => `u${i}@example.com`) }, /1 to 10 recipients/],
      [{ ...ok, to: [] }, /1 to 10 recipients/],
      [{ ...ok, text: '   ' }, /text must be 1 to 20000 characters/],
      [{ ...ok, subject: 'x'.repeat(201) }, /subject must be one line of 1 to 200/],
    ];
    for (const [input, problem] of cases) await t.throwsAsync(send(t, input), { message: problem }, JSON.stringify(input).slice(0, 80));
    const queued = await t.context.t.db.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM notification_outbox WHERE status = 'pending'`);
    t.is(queued, 0);
  },
);

test.serial('an organization sends at most 50 emails a UTC day; the next day it may send again', async (t) => {
  const ten = Array.from({ length: 10 }, (_, i) => `r${i}@example.com`);
  await Promise.all(Array.from({ length: 5 }, () => send(t, { to: ten, subject: 'Batch', text: 'Hello' })));
  await t.throwsAsync(send(t, { to: ['one@example.com'], subject: 'One more', text: 'Hello' }), {
    message: /may send 50 emails a day \(UTC\); 50 were sent today/,
  });
  const answer = await send(t, { to: ['one@example.com'], subject: 'Next day', text: 'Hello' }, new Date('2026-03-03T00:00:01Z'));
  t.like(answer, { queued: 1 });
});

test('send_email is available with SMTP_URL, and in development without it (the log sender prints it); elsewhere it is not', (t) => {
  const tool = findBuiltinTool('send_email')!;
  const base = testConfig();
  t.deepEqual(tool.availability(base), { available: false, reason: 'SMTP_URL is not set' });
  t.deepEqual(tool.availability({ ...base, nodeEnv: 'development' }), { available: true });
  t.deepEqual(tool.availability({ ...base, notifications: { ...base.notifications, smtpUrl: 'smtp://mail.example.com:25' } }), {
    available: true,
  });
  t.is(tool.suggestedPermission, 'needs_approval');
});
