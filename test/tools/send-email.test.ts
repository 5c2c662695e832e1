import anyTest, { type ExecutionContext } from 'ava';
import { pino } from 'pino';
import { sql } from 'slonik';
import { OutboxWorker } from '../../app/notifications/delivery/outbox-worker.ts';
import { smtpSender } from '../../app/notifications/delivery/smtp-sender.ts';
import { findBuiltinTool } from '../../app/tools/builtins.ts';
import { builtinInputSchema } from '../../app/tools/tool-input.ts';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { CapturedLogs, testConfig, withTestApp, type TestContext } from '../helpers/app.ts';
import { SmtpPeer } from '../notifications/smtp-peer.ts';
import { answered, bearer, chatConfig, provider, sendChat, serve, setTools, userMessage } from '../chat/support.ts';

const test = withTestApp(anyTest);
type T = ExecutionContext<TestContext>;

const scope = { organizationId: ORGANIZATIONS.demoAgency.id, agentId: AGENTS.support.id, userId: USERS.member.id };
const tool = findBuiltinTool('send_email')!;

/**
 * Runs `send_email` as the chat would: the input checked against the tool's schema first (a
 * refusal is thrown, as the SDK ends the call with it), then the executor, with the service's
 * clock at `now`, for `userId`, with `perUser` emails a user may send a day.
 */
async function send(
  t: T,
  input: Record<string, unknown>,
  options: { now?: Date; userId?: string; perUser?: number } = {},
): Promise<{ queued: number; to: string[]; replyTo: string }> {
  const base = testConfig();
  const config = {
    ...base,
    notifications: { ...base.notifications, smtpUrl: 'smtp://127.0.0.1:1' },
    tools: { ...base.tools, sendEmailPerUserPerDay: options.perUser ?? base.tools.sendEmailPerUserPerDay },
  };
  const checked = await builtinInputSchema(tool).validate!(input);
  if (!checked.success) throw checked.error;
  const now = options.now ?? new Date('2026-03-02T10:00:00Z');
  const deps = t.context.t.rebuild({ config, clock: () => now }).deps;
  const answer = await tool.execute(config)!({
    deps,
    scope: { ...scope, userId: options.userId ?? scope.userId },
    input: checked.value,
    signal: new AbortController().signal,
  });
  return answer as { queued: number; to: string[]; replyTo: string };
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
      [{ ...ok, to: ['a@example.com\r\nBcc: v@example.com'] }, /^to\.0: must be an email address$/],
      [{ ...ok, to: ['a@example.com, b@example.com'] }, /^to\.0: must be an email address$/],
      [{ ...ok, to: ['Name <a@example.com>'] }, /^to\.0: must be an email address$/],
      [{ ...ok, to: ['ok@example.com', 'a\u0001b@example.com'] }, /^to\.1: must be an email address$/],
      [{ ...ok, to: [' a@example.com'] }, /^to\.0: must be an email address$/],
      [{ ...ok, to: ['a\u00a0b@example.com'] }, /^to\.0: must be an email address$/],
      [{ ...ok, to: ['a@localhost'] }, /^to\.0: must be an email address$/],
      [{ ...ok, to: Array.from({ length: 11 }, (_, i) => `u${i}@example.com`) }, /^to: must NOT have more than 10 items$/],
      [{ ...ok, to: [] }, /^to: must NOT have fewer than 1 items$/],
      [{ ...ok, text: '   ' }, /text must be 1 to 20000 characters/],
      [{ ...ok, text: 'a\u0000b' }, /^text: must not contain the NUL character/],
      [{ ...ok, subject: 'x'.repeat(201) }, /^subject: must NOT have more than 200 characters$/],
      [{ ...ok, bcc: ['v@example.com'] }, /^bcc: Unrecognized key$/],
    ];
    for (const [input, problem] of cases) await t.throwsAsync(send(t, input), { message: problem }, JSON.stringify(input).slice(0, 80));
    const queued = await t.context.t.db.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM notification_outbox WHERE status = 'pending'`);
    t.is(queued, 0);
  },
);

test.serial('an organization sends at most 50 emails a UTC day; the next day it may send again', async (t) => {
  const ten = Array.from({ length: 10 }, (_, i) => `r${i}@example.com`);
  await Promise.all(Array.from({ length: 5 }, () => send(t, { to: ten, subject: 'Batch', text: 'Hello' }, { perUser: 50 })));
  await t.throwsAsync(send(t, { to: ['one@example.com'], subject: 'One more', text: 'Hello' }, { perUser: 50, userId: USERS.owner.id }), {
    message: /may send 50 emails a day \(UTC\); 50 were sent today/,
  });
  const answer = await send(t, { to: ['one@example.com'], subject: 'Next day', text: 'Hello' }, { now: new Date('2026-03-03T00:00:01Z') });
  t.like(answer, { queued: 1 });
});

test.serial(
  "one user's agents send at most SEND_EMAIL_PER_USER_PER_DAY (default 20) of them; another user of the organization still may",
  async (t) => {
    const ten = Array.from({ length: 10 }, (_, i) => `r${i}@example.com`);
    await send(t, { to: ten, subject: 'Batch', text: 'Hello' });
    await send(t, { to: ten, subject: 'Batch', text: 'Hello' });
    await t.throwsAsync(send(t, { to: ['one@example.com'], subject: 'One more', text: 'Hello' }), {
      message:
        'send_email: agents may send 20 emails a day (UTC) for one user (SEND_EMAIL_PER_USER_PER_DAY); 20 were sent for this user today',
    });
    t.like(await send(t, { to: ['one@example.com'], subject: 'Mine', text: 'Hello' }, { userId: USERS.owner.id }), { queued: 1 });
    // Configured lower, the share is that many.
    await t.throwsAsync(
      send(t, { to: ['a@example.com', 'b@example.com'], subject: 'Two', text: 'Hello' }, { userId: USERS.owner.id, perUser: 2 }),
      {
        message: /may send 2 emails a day \(UTC\) for one user \(SEND_EMAIL_PER_USER_PER_DAY\); 1 were sent for this user today/,
      },
    );
  },
);

test('send_email is available with SMTP_URL, and in development without it (the log sender prints it); elsewhere it is not', (t) => {
  const base = testConfig();
  t.deepEqual(tool.availability(base), { available: false, reason: 'SMTP_URL is not set' });
  t.deepEqual(tool.availability({ ...base, nodeEnv: 'development' }), { available: true });
  t.deepEqual(tool.availability({ ...base, notifications: { ...base.notifications, smtpUrl: 'smtp://mail.example.com:25' } }), {
    available: true,
  });
  t.is(tool.suggestedPermission, 'needs_approval');
});

type ToolPart = { type: string; state: string; input?: unknown; output?: { to: string[] }; errorText?: string };

test.serial(
  'through the chat, an address with a control character is refused before approval and the executor; a valid one is delivered exactly as recorded',
  async (t) => {
    const smtp = new SmtpPeer();
    t.teardown(() => smtp.close());
    const smtpUrl = await smtp.start();
    const auth = await bearer(t);
    await setTools(t, auth, [{ toolName: 'send_email', permissionStatus: 'needs_approval', providerKey: 'email' }]);
    const email = { subject: 'Your refund', text: 'It is on its way.' };
    const peer = await provider(t, (_, index) =>
      index === 0
        ? { kind: 'tool-call', toolName: 'send_email', input: { to: ['a\u0001b@example.com'], ...email } }
        : { kind: 'text', text: 'Done.' },
    );
    const base = testConfig();
    const config = chatConfig({ gatewayUrl: peer.url }, { notifications: { ...base.notifications, smtpUrl } });
    const url = await serve(t, config);

    const refused = await sendChat(url, auth, 'control-character', [userMessage('mail a<U+0001>b')]);
    const part = refused.message!.parts.find((candidate) => 'toolCallId' in candidate) as unknown as ToolPart;
    t.like(part, { state: 'output-error', errorText: 'Invalid input for tool send_email: to.0: must be an email address' });
    t.false(refused.chunks.some((chunk) => chunk.type === 'tool-approval-request'));
    t.regex(JSON.stringify(peer.requests[1]!.body.messages.at(-1)), /Invalid input for tool send_email: to\.0: must be an email address/);
    const queued = () => t.context.t.db.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM notification_outbox WHERE status = 'pending'`);
    t.is(await queued(), 0);
    t.is(await t.context.t.db.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM tool_approvals`), 0);

    // A valid address, approved: what the tool records is what the SMTP server's envelope receives.
    const valid = await provider(t, (_, index) =>
      index === 0
        ? { kind: 'tool-call', toolName: 'send_email', input: { to: ["Ana.O'Neil+refunds@Example.COM"], ...email } }
        : { kind: 'text', text: 'Sent.' },
    );
    const validUrl = await serve(t, chatConfig({ gatewayUrl: valid.url }, { notifications: { ...base.notifications, smtpUrl } }));
    const user = userMessage('mail Ana');
    const first = await sendChat(validUrl, auth, 'valid-address', [user]);
    const second = await sendChat(validUrl, auth, 'valid-address', [user, answered(first.message!, true)]);
    const sent = second.message!.parts.find((candidate) => 'toolCallId' in candidate) as unknown as ToolPart;
    t.is(sent.state, 'output-available');
    t.deepEqual(sent.output!.to, ["ana.o'neil+refunds@example.com"]);
    const worker = new OutboxWorker({
      db: t.context.t.db.pool,
      keyring: t.context.t.app.deps.config.credentialsKeyring,
      senders: { email: smtpSender({ url: smtpUrl, from: 'no-reply@test.example', timeoutMs: 1000 }) },
      logger: pino({ level: 'info' }, new CapturedLogs().stream),
    });
    t.like(await worker.drain(), { sent: 1, dead: 0 });
    t.deepEqual(
      smtp.received.map((mail) => mail.to),
      [sent.output!.to],
    );
  },
);
