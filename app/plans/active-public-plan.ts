import type { CommonQueryMethods } from 'slonik';
import { agencyHasActivePublicPlan } from '../../sql/plans.ts';

/** Gate 2 of business registration and the check behind Guard 1: does the agency offer an active public plan? */
export function hasActivePublicPlan(db: CommonQueryMethods, organizationId: string): Promise<boolean> {
  return agencyHasActivePublicPlan(db, organizationId);
}
