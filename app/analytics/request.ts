import { isValidTimeZone } from '@agents/analytics';
import type { Context } from 'koa';
import type { SourceFilter, UsageWindow } from '../../sql/usage-window.ts';
import { forbidden, ValidationError } from '../core/errors.ts';
import type { AccessClaims } from '../core/route.ts';

/**
 * The organization a request reads (docs/interface.md §5): `x-org-id` when present, else the token's
 * `agencyId`; a header naming another organization is a 403.
 */
export function requestedOrganization(ctx: Context, auth: AccessClaims): string {
  const header = ctx.get('x-org-id');
  if (header !== '' && header !== auth.agencyId) throw forbidden();
  return auth.agencyId;
}

/** The window of a validated query; `from` must be earlier than `to` (400 at `query.from`). */
export function usageWindow(
  organizationId: string,
  query: { from: string; to: string; source: SourceFilter },
  extra: Pick<UsageWindow, 'actionType'> = {},
): UsageWindow {
  const from = new Date(query.from);
  const to = new Date(query.to);
  if (!(from.getTime() < to.getTime())) {
    throw new ValidationError([{ path: ['query', 'from'], message: 'must be earlier than to' }]);
  }
  return { organizationId, from, to, source: query.source, ...extra };
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
});
