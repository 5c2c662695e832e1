import type { ExecutionContext } from 'ava';
import { openMessageBody } from '../../app/notifications/sealing.ts';
import { listOutboxMessagesTo } from '../../sql/notification-outbox.ts';
import { ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import type { TestContext } from '../helpers/app.ts';

export type T = ExecutionContext<TestContext>;

/** The newest message sent to `email`, opened the way a delivery worker would open it. */
export async function lastMessageTo(t: T, email: string): Promise<{ template: string; text: string; count: number }> {
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
