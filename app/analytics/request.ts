import { isValidTimeZone } from '@agents/analytics';
import type { EvaluationFilter, SourceFilter, UsageWindow } from '../../sql/usage-window.ts';
import { ValidationError } from '../core/errors.ts';

/** The window of a validated query; `from` must be earlier than `to` (400 at `query.from`). */
export function usageWindow(
  organizationId: string,
  query: { from: string; to: string; source: SourceFilter; evaluation?: EvaluationFilter },
  extra: Pick<UsageWindow, 'actionType'> = {},
): UsageWindow {
  const from = new Date(query.from);
  const to = new Date(query.to);
  if (!(from.getTime() < to.getTime())) {
    throw new ValidationError([{ path: ['query', 'from'], message: 'must be earlier than to' }]);
  }
  const evaluation = query.evaluation === 'exclude' || query.evaluation === 'only' ? { evaluation: query.evaluation } : {};
  return { organizationId, from, to, source: query.source, ...evaluation, ...extra };
}

/** 400 at `query.timezone` unless the runtime knows the IANA zone. */
export function checkedTimeZone(timeZone: string): string {
  if (!isValidTimeZone(timeZone)) {
    throw new ValidationError([{ path: ['query', 'timezone'], message: 'must be a known IANA time zone' }]);
  }
  return timeZone;
}

/** The part of a window that identifies a result in the cache. */
export const windowKey = (window: UsageWindow) => ({
  from: window.from.toISOString(),
  to: window.to.toISOString(),
  source: window.source,
  action: window.actionType ?? null,
  evaluation: window.evaluation ?? 'include',
});
