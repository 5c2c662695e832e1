import type { Agent } from '../../../sql/agents.ts';
import type { EndUserScope } from '../../../sql/chat-conversations.ts';
import { findEndUser, type EndUser } from '../../../sql/end-users.ts';
import { claimApprovalNotification, listApprovalRecipients } from '../../../sql/staff-approvals.ts';
import type { AppDeps } from '../../core/deps.ts';
import { outboxTransport } from '../../notifications/outbox-transport.ts';

/** At most one mail per conversation in this time, however many approvals it asks. */
export const APPROVAL_MAIL_INTERVAL_MS = 10 * 60_000;

/** A value an end user wrote, quoted as a JSON string: quotes and any control character inside stay escaped, so it cannot end the line or the quote. */
const quoted = (text: string) => JSON.stringify(text);

/**
 * How staff read an end user in a mail: how they were vouched for (`who`), and the name and
 * email they gave, quoted and said to be theirs (`given`; undefined when they gave none).
 */
export function endUserInMail(endUser: Pick<EndUser, 'name' | 'email' | 'externalId' | 'kind'> | null): { who: string; given?: string } {
  const who =
    endUser === null || endUser.kind === 'anonymous'
      ? 'an anonymous visitor'
      : endUser.kind === 'client'
        ? 'a client of your organization, signed in with their account'
        : `a verified user of the business (its user id ${quoted(endUser.externalId ?? '')})`;
  const gave = [
    ...(endUser?.name ? [`the name ${quoted(endUser.name)}`] : []),
    ...(endUser?.email ? [`the email ${quoted(endUser.email)}`] : []),
  ];
  return gave.length === 0 ? { who } : { who, given: `The end user gave ${gave.join(' and ')}, in their own words (not checked by us).` };
}

/**
 * Tells the organization's staff (its users with `update` on `ai.approval` or `ai.agent`) that an end user's turn
 * waits for their approval: one email each through the outbox, at most one per conversation per
 * `APPROVAL_MAIL_INTERVAL_MS` (the claim and the mails commit together), naming the agent, the
 * tool, the end user (what they gave quoted, as theirs) and the console's inbox. Never throws: a
 * mail that cannot be queued is logged, and the approval waits in the inbox all the same.
 */
export async function notifyStaff(
  deps: AppDeps,
  pending: { scope: EndUserScope; agent: Pick<Agent, 'id' | 'name'>; conversationId: string; toolName: string },
): Promise<void> {
  try {
    await deps.db.transaction(async (tx) => {
      const now = deps.clock();
      const since = new Date(now.getTime() - APPROVAL_MAIL_INTERVAL_MS);
      if (!(await claimApprovalNotification(tx, pending.conversationId, now, since))) return;
      const [recipients, endUser] = await Promise.all([
        listApprovalRecipients(tx, pending.scope.organizationId),
        findEndUser(tx, pending.scope.endUserId),
      ]);
      const inbox = `${deps.config.publicBaseUrl}/dashboard/#/approvals`;
      const { who, given } = endUserInMail(endUser);
      const text = [
        `${pending.agent.name} wants to run the tool ${pending.toolName} in a conversation with ${who}, and waits for your approval.`,
        ...(given ? [given] : []),
        '',
        `Answer it in the console's approvals inbox: ${inbox}`,
      ].join('\n');
      const transport = outboxTransport(deps);
      for (const to of recipients)
        await transport.send(tx, {
          channel: 'email',
          to,
          template: 'approval-pending',
          organizationId: pending.scope.organizationId,
          subject: `${pending.agent.name} waits for your approval (${pending.toolName})`,
          text,
        });
    });
  } catch (error) {
    deps.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'approval mail not queued');
  }
}
