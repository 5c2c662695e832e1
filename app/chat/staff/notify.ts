import type { Agent } from '../../../sql/agents.ts';
import type { EndUserScope } from '../../../sql/chat-conversations.ts';
import { findEndUser, type EndUser } from '../../../sql/end-users.ts';
import { claimApprovalNotification, listApprovalRecipients } from '../../../sql/staff-approvals.ts';
import type { AppDeps } from '../../core/deps.ts';
import { outboxTransport } from '../../notifications/outbox-transport.ts';

/** At most one mail per conversation in this time, however many approvals it asks. */
export const APPROVAL_MAIL_INTERVAL_MS = 10 * 60_000;

/** How staff read an end user in a mail: their name, else the business's id of them, else "a visitor". */
export const endUserLabel = (endUser: Pick<EndUser, 'name' | 'externalId' | 'kind'> | null) =>
  endUser?.name ??
  (endUser?.externalId ? `${endUser.kind === 'client' ? 'client' : 'user'} ${endUser.externalId}` : 'an anonymous visitor');

/**
 * Tells the organization's staff (its users with `update` on `ai.approval` or `ai.agent`) that an end user's turn
 * waits for their approval: one email each through the outbox, at most one per conversation per
 * `APPROVAL_MAIL_INTERVAL_MS` (the claim and the mails commit together), naming the agent, the
 * tool, the end user and the console's inbox. Never throws: a mail that cannot be queued is
 * logged, and the approval waits in the inbox all the same.
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
      const who = endUserLabel(endUser);
      const text = [
        `${pending.agent.name} wants to run the tool ${pending.toolName} in a conversation with ${who}, and waits for your approval.`,
        '',
        `Answer it in the console's approvals inbox: ${inbox}`,
      ].join('\n');
      const transport = outboxTransport(deps);
      for (const to of recipients)
        await transport.send(tx, {
          channel: 'email',
          to,
          template: 'approval-pending',
          subject: `${pending.agent.name} waits for your approval (${pending.toolName})`,
          text,
        });
    });
  } catch (error) {
    deps.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'approval mail not queued');
  }
}
