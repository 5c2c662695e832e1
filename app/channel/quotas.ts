import { countEndUserMessage } from '../../sql/end-users.ts';
import type { AppDeps } from '../core/deps.ts';
import { secondsToNextUtcMonth } from '../plans/limits.ts';
import { endUserMonthlyQuotaExceeded, endUserQuotaExceeded } from './errors.ts';

/*
 * The two quotas every turn an end user starts counts against (docs/channel.md, docs/billing.md):
 * the channel's `endUserMessagesPerDay` per end user and UTC day, then the business's plan's
 * `maxEndUserMessagesPerMonth` over all its channels and the UTC month. They live with the channel
 * that counts them: the plans' area never imports the channel.
 */

/** Seconds from `now` to the next UTC midnight (at least 1). */
const secondsToUtcMidnight = (now: Date) =>
  Math.max(1, Math.ceil((Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000));

/**
 * Counts one turn of the end user against their day and their organization's month, in one
 * statement; throws 429 `AI.END_USER_QUOTA_EXCEEDED` with `retryAfterSeconds` (to the next UTC
 * midnight for the day, to the next UTC month for the month) when either is reached.
 */
export async function countEndUserTurn(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  endUser: { endUserId: string; organizationId: string },
  dayLimit: number,
): Promise<void> {
  const now = deps.clock();
  const iso = now.toISOString();
  const counted = await countEndUserMessage(deps.db, { ...endUser, day: iso.slice(0, 10), dayLimit, month: `${iso.slice(0, 7)}-01` });
  if (counted.day === null) throw endUserQuotaExceeded(dayLimit, secondsToUtcMidnight(now));
  if (counted.month === null && counted.monthLimit !== null)
    throw endUserMonthlyQuotaExceeded(counted.monthLimit, secondsToNextUtcMonth(now));
}
