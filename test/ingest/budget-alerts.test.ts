import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import anyTest, { type ExecutionContext } from 'ava';
import { pino } from 'pino';
import request from 'supertest';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { sweepBudgets } from '../../app/analytics/budget/checker.ts';
import { smtpSender } from '../../app/notifications/delivery/smtp-sender.ts';
import { OutboxWorker } from '../../app/notifications/delivery/outbox-worker.ts';
import { BUDGET_SWEEP_LOCK_KEY } from '../../sql/usage-budgets.ts';
import { insertUsageEvents } from '../../sql/usage-events.ts';
import { createTenant, type Tenant } from '../analytics/support.ts';
import { withAdmin } from '../helpers/database.ts';
import { TEST_CREDENTIALS_KEY, withTestApp, type TestContext } from '../helpers/app.ts';
import { SmtpPeer } from '../notifications/smtp-peer.ts';
import { createApiKey, usageEvent } from './support.ts';

const test = withTestApp(anyTest, { seed: false });
type T = ExecutionContext<TestContext>;

/** The outbox is shared by the file: each test starts with nothing pending. */
test.beforeEach(async (t) => {
  await t.context.t.db.pool.query(sql.unsafe`UPDATE notification_outbox SET status = 'dead' WHERE status = 'pending'`);
});

/** An app on the file's database whose clock the test moves, a real SMTP server and the outbox worker that feeds it. */
async function setUp(t: T, label: string, start: string) {
  const clock = { now: new Date(start) };
  const app = t.context.t.rebuild({ clock: () => clock.now });
  const http = () => request(app.callback());
  const peer = new SmtpPeer();
  t.teardown(() => peer.close());
  const worker = new OutboxWorker({
    db: t.context.t.db.pool,
    keyring: app.deps.config.credentialsKeyring,
    senders: { email: smtpSender({ url: await peer.start(), from: 'no-reply@test.example', timeoutMs: 2_000 }) },
    logger: pino({ level: 'silent' }),
  });
  const tenant = await createTenant(t.context.t.db.pool, label);
  const { key } = await createApiKey({ ...t.context.t, http }, tenant.ownerToken);
  const send = async (costUsd: number, createdAt = clock.now.toISOString()) =>
    http()
      .post('/api/ai/org-usage/events')
      .set('authorization', `Bearer ${key}`)
      .send({ events: [usageEvent({ costUsd, createdAt })] })
      .expect(200);
  /** Delivers what the outbox holds and returns the mails that arrived since the last call. */
  let seen = 0;
  const delivered = async () => {
    await worker.drain();
    // The text part arrives quoted-printable: undo its soft line breaks and escapes.
    const fresh = peer.received.slice(seen).map((mail) => ({
      ...mail,
      text: mail.text.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    }));
    seen = peer.received.length;
    return fresh;
  };
  return { clock, app, http, tenant, send, delivered, deps: app.deps };
}

/** The tenant's owner and member addresses, in that order. */
const emailsOf = (t: T, tenant: Tenant) =>
  t.context.t.db.pool.anyFirst(sql.type(z.object({ email: z.string() }))`
    SELECT email FROM users WHERE organization_id = ${tenant.organizationId} ORDER BY name DESC`);

test.serial('each threshold crossed by ingestion sends one email per month to the owner, none to a member', async (t) => {
  const { tenant, send, delivered, http, clock } = await setUp(t, 'Budget Agency', '2026-06-10T12:00:00.000Z');
  const [ownerEmail, memberEmail] = await emailsOf(t, tenant);
  await http()
    .put('/api/ai/org-usage/budget')
    .set('authorization', `Bearer ${tenant.ownerToken}`)
    .send({ monthlyLimitUsd: 100 })
    .expect(200);

  await send(55);
  const first = await delivered();
  t.is(first.length, 1);
  t.deepEqual(first[0]!.to, [ownerEmail]);
  t.regex(first[0]!.text, /Budget Agency/);
  t.regex(first[0]!.text, /50%/);
  t.regex(first[0]!.text, /\$55\.00/);
  t.regex(first[0]!.text, /\$100\.00/);

  await send(10);
  t.is((await delivered()).length, 0, 'no second email for the same threshold');

  await send(20);
  const second = await delivered();
  t.is(second.length, 1);
  t.regex(second[0]!.text, /80%/);
  t.regex(second[0]!.text, /\$85\.00/);

  await send(20);
  const third = await delivered();
  t.deepEqual(
    third.map((mail) => /(\d+)% of its/.exec(mail.text)?.[1]),
    ['100'],
  );
  const status = await http().get('/api/ai/org-usage/budget').set('authorization', `Bearer ${tenant.ownerToken}`).expect(200);
  t.like(status.body, { monthlyLimitUsd: 100, alertThresholdsPct: [50, 80, 100], month: '2026-06', spentUsd: 105, status: 'exceeded' });

  // July starts fresh: the first threshold alerts again.
  clock.now = new Date('2026-07-02T09:00:00.000Z');
  const july = await http().get('/api/ai/org-usage/budget').set('authorization', `Bearer ${tenant.ownerToken}`).expect(200);
  t.like(july.body, { month: '2026-07', spentUsd: 0, status: 'ok' });
  await send(30);
  t.is((await delivered()).length, 0);
  await send(30);
  const julyMails = await delivered();
  t.is(julyMails.length, 1);
  t.regex(julyMails[0]!.text, /50%.*\$60\.00.*2026-07/s);

  const everyone = [first, second, third, julyMails].flat().flatMap((mail) => mail.to);
  t.false(everyone.includes(memberEmail!), 'a member gets nothing');
});

test.serial('a month-end projection above the limit sends one at_risk email naming the projection', async (t) => {
  const { tenant, http, delivered, deps } = await setUp(t, 'Risky Agency', '2026-06-15T12:00:00.000Z');
  // Ten days of $10 (June 5 to 14): the trend says about $10 a day for the 15 days left.
  await insertUsageEvents(
    deps.db,
    Array.from({ length: 10 }, (_, day) => ({
      id: uuidv7(),
      organizationId: tenant.organizationId,
      agentId: null,
      userId: null,
      modelId: 'risk/model',
      actionType: 'user_interaction' as const,
      source: 'system' as const,
      inputTokens: 1,
      outputTokens: 1,
      cacheReadTokens: 0,
      costUsd: 10,
      latencyMs: null,
      createdAt: new Date(Date.UTC(2026, 5, 5 + day, 12)).toISOString(),
    })),
  );
  const put = await http()
    .put('/api/ai/org-usage/budget')
    .set('authorization', `Bearer ${tenant.ownerToken}`)
    .send({ monthlyLimitUsd: 200, alertThresholdsPct: [90] })
    .expect(200);
  t.like(put.body, { spentUsd: 100, status: 'at_risk', alertThresholdsPct: [90] });
  t.true(Math.abs(put.body.projectedUsd - 250) < 0.01, `projected ${put.body.projectedUsd}`);
  const mails = await delivered();
  t.is(mails.length, 1);
  t.regex(mails[0]!.subject ?? '', /at risk/);
  t.regex(mails[0]!.text, /Risky Agency.*\$250\.00.*\$200\.00/s);
  await sweepBudgets(deps);
  t.is((await delivered()).length, 0, 'at_risk goes once a month');
});

test.serial('the sweep alerts for usage written without a check, and only one sweep runs at a time', async (t) => {
  const { tenant, http, delivered, deps } = await setUp(t, 'Swept Agency', '2026-06-20T12:00:00.000Z');
  await http()
    .put('/api/ai/org-usage/budget')
    .set('authorization', `Bearer ${tenant.ownerToken}`)
    .send({ monthlyLimitUsd: 10 })
    .expect(200);
  await insertUsageEvents(deps.db, [
    {
      id: uuidv7(),
      organizationId: tenant.organizationId,
      agentId: null,
      userId: null,
      modelId: 'sweep/model',
      actionType: 'user_interaction',
      source: 'system',
      inputTokens: 1,
      outputTokens: 1,
      cacheReadTokens: 0,
      costUsd: 6,
      latencyMs: null,
      createdAt: '2026-06-20T11:00:00.000Z',
    },
  ]);
  // Another process holds the sweep: this one skips its turn and sends nothing.
  const skipped = await withAdmin(async (client) => {
    await client.query('SELECT pg_advisory_lock($1)', [BUDGET_SWEEP_LOCK_KEY]);
    try {
      return await sweepBudgets(deps);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [BUDGET_SWEEP_LOCK_KEY]);
    }
  }, t.context.t.db.url);
  t.is(skipped, undefined);
  t.is((await delivered()).length, 0);
  t.true(((await sweepBudgets(deps)) ?? 0) >= 1);
  const mails = await delivered();
  t.is(mails.length, 1);
  t.regex(mails[0]!.text, /Swept Agency.*50%.*\$6\.00.*\$10\.00/s);
});

test('budget routes: validation, 404 without a budget, members read but cannot change it', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'budget-routes');
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  await t.context.t.http().get('/api/ai/org-usage/budget').set(auth(tenant.ownerToken)).expect(404);
  await t.context.t.http().delete('/api/ai/org-usage/budget').set(auth(tenant.ownerToken)).expect(404);
  const bad = await t.context.t
    .http()
    .put('/api/ai/org-usage/budget')
    .set(auth(tenant.ownerToken))
    .send({ monthlyLimitUsd: 0, alertThresholdsPct: [0, 101] })
    .expect(400);
  t.deepEqual(
    bad.body.errors.map((error: { path: string[] }) => error.path.join('.')),
    ['monthlyLimitUsd', 'alertThresholdsPct.0', 'alertThresholdsPct.1'],
  );
  await t.context.t.http().put('/api/ai/org-usage/budget').set(auth(tenant.memberToken)).send({ monthlyLimitUsd: 5 }).expect(403);
  const put = await t.context.t
    .http()
    .put('/api/ai/org-usage/budget')
    .set(auth(tenant.ownerToken))
    .send({ monthlyLimitUsd: 5, alertThresholdsPct: [90, 25] })
    .expect(200);
  t.like(put.body, { monthlyLimitUsd: 5, alertThresholdsPct: [25, 90], spentUsd: 0, projectedUsd: null, status: 'ok' });
  await t.context.t.http().delete('/api/ai/org-usage/budget').set(auth(tenant.memberToken)).expect(403);
  await t.context.t.http().delete('/api/ai/org-usage/budget').set(auth(tenant.ownerToken)).expect(204);
  await t.context.t.http().get('/api/ai/org-usage/budget').set(auth(tenant.ownerToken)).expect(404);
});

test("GET budgets lists the one budget or none, 200 either way, and never another organization's", async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'budget-list');
  const other = await createTenant(t.context.t.db.pool, 'budget-list-other');
  const list = async (token: string) =>
    (await t.context.t.http().get('/api/ai/org-usage/budgets').set('authorization', `Bearer ${token}`).expect(200)).body as {
      budgets: { monthlyLimitUsd: number }[];
    };
  t.deepEqual(await list(tenant.ownerToken), { budgets: [] });
  const put = await t.context.t
    .http()
    .put('/api/ai/org-usage/budget')
    .set('authorization', `Bearer ${tenant.ownerToken}`)
    .send({ monthlyLimitUsd: 12.5, enforce: true })
    .expect(200);
  const got = await t.context.t.http().get('/api/ai/org-usage/budget').set('authorization', `Bearer ${tenant.ownerToken}`).expect(200);
  t.deepEqual(await list(tenant.ownerToken), { budgets: [got.body] });
  t.like(put.body, { monthlyLimitUsd: 12.5, enforce: true });
  t.deepEqual(await list(other.ownerToken), { budgets: [] });
});

test.serial('`cli import-usage` runs the budget check every usage write runs: spend it imports past a threshold is mailed', async (t) => {
  const { tenant, delivered, http } = await setUp(t, 'Import Agency', new Date().toISOString());
  const [ownerEmail] = await emailsOf(t, tenant);
  await http()
    .put('/api/ai/org-usage/budget')
    .set('authorization', `Bearer ${tenant.ownerToken}`)
    .send({ monthlyLimitUsd: 10 })
    .expect(200);
  const dir = mkdtempSync(join(tmpdir(), 'import-alert-'));
  const file = join(dir, 'usage.ndjson');
  const { id: _id, ...event } = usageEvent({ costUsd: 6, createdAt: new Date().toISOString() });
  writeFileSync(file, `${JSON.stringify({ ...event, organizationId: tenant.organizationId })}\n`);

  const { stderr } = await promisify(execFile)(process.execPath, ['--conditions=agents-source', 'bin/cli.ts', 'import-usage', file], {
    // The operator's keyring: the outbox seals the mail with it and the service's worker opens it.
    env: { ...process.env, DATABASE_URL: t.context.t.db.url, NODE_ENV: 'test', DATA_DIR: dir, CREDENTIALS_KEY: TEST_CREDENTIALS_KEY },
  });

  t.regex(stderr, /imported 1 usage rows/);
  const mails = await delivered();
  t.is(mails.length, 1);
  t.deepEqual(mails[0]!.to, [ownerEmail]);
  t.regex(mails[0]!.text, /50 ?%/);
});
