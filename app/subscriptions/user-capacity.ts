import type { CommonQueryMethods } from 'slonik';
import { findAgencySeats } from '../../sql/subscriptions.ts';

/**
 * Gate 3 of business registration (the subscription-limits check): can the agency take one
 * more user? Its capacity counts the agency's own principals and its businesses'; a NULL
 * capacity is unlimited; a missing agency has none.
 */
export async function hasUserCapacity(db: CommonQueryMethods, organizationId: string): Promise<boolean> {
  const seats = await findAgencySeats(db, organizationId);
  if (!seats) return false;
  return seats.capacity === null || seats.used < seats.capacity;
}
