import type { JSONSchema7 } from '@ai-sdk/provider';
import { uuidv7 } from 'uuidv7';
import { insertSentEmail, lockAndCountSentEmails } from '../../sql/agent-sent-emails.ts';
import { isEndUserScope } from '../../sql/chat-conversations.ts';
import { findUserProfile } from '../../sql/users.ts';
import type { BuiltinCall } from './builtin-executor.ts';
import { transportFor } from '../notifications/transport.ts';

export const MAX_EMAIL_RECIPIENTS = 10;
/** Emails (one per recipient) an organization's agents may queue per UTC day. */
export const MAX_EMAILS_PER_ORGANIZATION_PER_DAY = 50;
export const MAX_EMAIL_SUBJECT_CHARS = 200;
export const MAX_EMAIL_TEXT_CHARS = 20_000;

export const SEND_EMAIL_INPUT: JSONSchema7 = {
  type: 'object',
  properties: {
    to: {
      type: 'array',
      // `format: email` is checked by the API's address rule (app/tools/tool-input.ts): a dot-atom
      // local part and a dotted domain, ASCII, nothing nodemailer would drop or read as another recipient.
      items: { type: 'string', format: 'email', description: 'An email address (local@domain)', maxLength: 254 },
      minItems: 1,
      maxItems: MAX_EMAIL_RECIPIENTS,
    },
    subject: { type: 'string', description: 'Subject line, one line', minLength: 1, maxLength: MAX_EMAIL_SUBJECT_CHARS },
    text: { type: 'string', description: 'Plain-text body', minLength: 1, maxLength: MAX_EMAIL_TEXT_CHARS },
  },
  required: ['to', 'subject', 'text'],
  additionalProperties: false,
};

/** C0 controls and DEL: a line break in the subject would start a header of its own. */
const hasControlCharacter = (text: string) => [...text].some((char) => char.charCodeAt(0) < 0x20 || char === '\u007f');

/** The start of the UTC day of `now`. */
const dayOf = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));

/**
 * The message of an input the schema allowed (SEND_EMAIL_INPUT, checked before this runs), or the
 * reason it cannot be sent: what the schema cannot say. Addresses are kept as written but in
 * lower case, each once; that is what is recorded and what the SMTP envelope carries.
 */
function checked(input: Record<string, unknown>): { to: string[]; subject: string; text: string } {
  const to = (input.to as string[]).map((address) => address.toLowerCase());
  const subject = input.subject as string;
  if (subject.trim() === '' || hasControlCharacter(subject))
    throw new Error(`send_email: the subject must be one line of 1 to ${MAX_EMAIL_SUBJECT_CHARS} characters`);
  const text = input.text as string;
  if (text.trim() === '') throw new Error(`send_email: the text must be 1 to ${MAX_EMAIL_TEXT_CHARS} characters`);
  return { to: [...new Set(to)], subject, text };
}

/**
 * The built-in `send_email`: one plain-text message per recipient queued in the outbox (sent by
 * the outbox worker from `MAIL_FROM`, `Reply-To` the calling user's address), in one transaction
 * with the record the daily limits count. At most 10 recipients, 50 per organization per UTC day,
 * of which `SEND_EMAIL_PER_USER_PER_DAY` (default 20) for one user.
 */
export async function sendEmailTool({ deps, scope, input }: BuiltinCall): Promise<{ queued: number; to: string[]; replyTo: string }> {
  const message = checked(input);
  // An end user of a website chat is nobody's colleague: the business's agent sends no email for one (docs/channel.md).
  if (isEndUserScope(scope)) throw new Error('send_email is not available in website chats');
  const user = await findUserProfile(deps.db, scope.userId);
  if (!user) throw new Error('send_email: the calling user no longer exists');
  const now = deps.clock();
  const transport = transportFor(deps);
  await deps.db.transaction(async (tx) => {
    const sent = await lockAndCountSentEmails(tx, { organizationId: scope.organizationId, userId: scope.userId }, dayOf(now));
    if (sent.organization + message.to.length > MAX_EMAILS_PER_ORGANIZATION_PER_DAY)
      throw new Error(
        `send_email: this organization's agents may send ${MAX_EMAILS_PER_ORGANIZATION_PER_DAY} emails a day (UTC); ${sent.organization} were sent today`,
      );
    const perUser = deps.config.tools.sendEmailPerUserPerDay;
    if (sent.user + message.to.length > perUser)
      throw new Error(
        `send_email: agents may send ${perUser} emails a day (UTC) for one user (SEND_EMAIL_PER_USER_PER_DAY); ${sent.user} were sent for this user today`,
      );
    for (const to of message.to)
      await transport.send(tx, {
        channel: 'email',
        to,
        template: 'tool:send_email',
        subject: message.subject,
        text: message.text,
        replyTo: user.email,
      });
    await insertSentEmail(tx, {
      id: uuidv7(),
      organizationId: scope.organizationId,
      agentId: scope.agentId,
      userId: scope.userId,
      recipients: message.to.length,
      createdAt: now,
    });
  });
  return { queued: message.to.length, to: message.to, replyTo: user.email };
}
