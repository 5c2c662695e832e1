import { answerStaffApproval, listExpiredApprovals } from '../../../sql/staff-approvals.ts';
import type { AppDeps } from '../../core/deps.ts';
import { Sweeper } from '../../core/sweeper.ts';
import { continueConversation } from './continuation.ts';

/** The reason an approval that waited past `AI_APPROVAL_TTL_MS` is denied with (the model reads it). */
export const EXPIRED_REASON = 'expired';
/** How often pending approvals are looked at; an approval expires within this time of its TTL. */
export const APPROVAL_SWEEP_INTERVAL_MS = 60_000;
/** Most approvals one sweep expires (the next sweep takes the rest). */
const SWEEP_BATCH = 100;

/**
 * Expires the approvals of end users' turns that waited longer than `AI_APPROVAL_TTL_MS`: each is
 * denied with the reason `expired` (no one answered it: `answeredBy` null), and its conversation
 * goes on, so the model tells the end user. Single use as any answer: of a sweep and a staff answer
 * at once, one wins. Returns how many expired.
 */
export async function expireApprovals(deps: AppDeps): Promise<number> {
  const now = deps.clock();
  const ids = await listExpiredApprovals(deps.db, new Date(now.getTime() - deps.config.ai.approvalTtlMs), SWEEP_BATCH);
  let expired = 0;
  for (const approvalId of ids) {
    const conversationId = await answerStaffApproval(deps.db, {
      approvalId,
      approved: false,
      reason: EXPIRED_REASON,
      answeredBy: null,
      now,
    });
    if (conversationId === null) continue;
    expired += 1;
    await continueConversation(deps, conversationId);
  }
  return expired;
}

/** The once-a-minute expiry of a server process (concurrent sweeps of several processes answer each approval once). */
export class ApprovalWatcher extends Sweeper {
  constructor(deps: AppDeps) {
    super(
      () => expireApprovals(deps),
      (error) => deps.logger.warn({ err: error }, 'approval expiry failed'),
      APPROVAL_SWEEP_INTERVAL_MS,
    );
  }
}
