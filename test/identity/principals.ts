import type { ExecutionContext } from 'ava';
import { outboxJobs } from '../../app/outbox-jobs.ts';
import { OutboxWorker } from '../../app/notifications/delivery/outbox-worker.ts';
import { openMessageBody } from '../../app/notifications/sealing.ts';
import { listOutboxMessagesTo } from '../../sql/notification-outbox.ts';
import { ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import type { TestContext } from '../helpers/app.ts';

export type T = ExecutionContext<TestContext>;

/** Drains of one test file run one after another: a drain never misses a row another one holds. */
let draining: Promise<unknown> = Promise.resolve();

/**
 * What the outbox worker of `npm start` does within a second: runs the queued jobs (a
 * forgot-password request becomes a reset email, ADR 0114) and hands every due message to a
 * sender, here one that accepts everything.
 */
export function runOutboxWorker(t: T) {
  const { db, config, logger } = t.context.t.app.deps;
  const worker = new OutboxWorker({
    db,
    keyring: config.credentialsKeyring,
    senders: { email: { name: 'accept', send: async () => undefined } },
    logger,
    jobs: outboxJobs(db, config, logger),
  });
  const round = draining.then(() => worker.drain());
  draining = round.catch(() => undefined);
  return round;
}

/** The newest message sent to `email` once the outbox worker ran, opened the way a delivery worker would open it. */
export async function lastMessageTo(t: T, email: string): Promise<{ template: string; text: string; count: number }> {
  await runOutboxWorker(t);
  const messages = await listOutboxMessagesTo(t.context.t.db.pool, email);
  const newest = messages[0];
  if (!newest) throw new Error(`no message to ${email}`);
  const body = openMessageBody(t.context.t.app.deps.config.credentialsKeyring, newest.id, newest.sealedBody);
  return { template: newest.template, text: body.text, count: messages.length };
}

/** The verification code in the newest message to `email`. */
export async function codeSentTo(t: T, email: string): Promise<string> {
  const { text } = await lastMessageTo(t, email);
  const match = /\b(\d{6})\b/.exec(text);
  if (!match) throw new Error('no code in the message');
  return match[1]!;
}

export const PASSWORD = 'correct horse battery';

/** Registers a principal of `type` (a user with a new agency, or a client of Demo Agency). */
export function register(t: T, type: 'user' | 'client', email: string, password = PASSWORD) {
  const body =
    type === 'user'
      ? { email, password, name: 'New Person', organizationName: 'New Agency' }
      : { email, password, name: 'New Client', organizationId: ORGANIZATIONS.demoAgency.id };
  return t.context.t.http().post(`/api/identity/auth/${type}/register`).send(body);
}

/** Registers, verifies and signs in; answers the token pair. */
export async function verifiedPrincipal(t: T, type: 'user' | 'client', email: string, password = PASSWORD) {
  await register(t, type, email, password).expect(201);
  const code = await codeSentTo(t, email);
  await t.context.t.http().post(`/api/identity/auth/${type}/verify-email`).send({ email, code }).expect(200);
  const login = await t.context.t.http().post(`/api/identity/auth/${type}/login`).send({ email, password }).expect(200);
  return login.body as { accessToken: string; refreshToken: string };
}
