import type { CommonQueryMethods } from 'slonik';
import { isAgencyOpenForBusinessRegistration } from '../../sql/organizations.ts';

/**
 * Gate 1 of business registration, and the organization area's cross-area read: true only
 * when the organization exists, is an AGENCY and has `allowBusinessRegistration` on; false
 * for a missing organization, a non-agency organization or a flag that is off.
 */
export function isBusinessRegistrationOpen(db: CommonQueryMethods, organizationId: string): Promise<boolean> {
  return isAgencyOpenForBusinessRegistration(db, organizationId);
}
