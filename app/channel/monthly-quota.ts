import { countMonthlyMessage } from '../../sql/plan-limits.ts';
import type { AppDeps } from '../core/deps.ts';
import { secondsToNextUtcMonth } from '../plans/limits.ts';
import { endUserMonthlyQuotaExceeded } from './errors.ts';

/*
 * A business's plan's maxEndUserMessagesPerMonth (docs/billing.md, "Limits"), counted over all its
 * channels. It lives with the channel that counts it: the plans' area never imports the channel.
 */

/** The first day of `now`'s UTC month, as `YYYY-MM-01`. */
const monthOf = (now: Date) => `${now.toISOString().slice(0, 7)}-01`;

/**
 * Counts one end-user message of the organization this UTC month, over all its channels; throws
 * 429 `AI.END_USER_QUOTA_EXCEEDED` (with `retryAfterSeconds` to the next UTC month) when its plan's
 * `maxEndUserMessagesPerMonth` is reached. One statement.
 */
export async function countEndUserMessageOfMonth(deps: Pick<AppDeps, 'db' | 'clock'>, organizationId: string): Promise<void> {
  const now = deps.clock();
  const counted = await countMonthlyMessage(deps.db, organizationId, monthOf(now));
  if (counted.messages === null && counted.limit !== null) throw endUserMonthlyQuotaExceeded(counted.limit, secondsToNextUtcMonth(now));
}
