import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Seats = z.strictObject({ capacity: z.number().nullable(), used: z.number() });

/**
 * The agency's user capacity (NULL: unlimited) and the principals counted against it: the
 * agency's own and those of every business registered under it. None for a missing agency.
 */
export function findAgencySeats(db: CommonQueryMethods, organizationId: string) {
  return db.maybeOne(sql.type(Seats)`
    SELECT a.user_capacity AS capacity,
           (SELECT count(*)::int FROM users u
              JOIN organizations o ON o.id = u.organization_id
             WHERE o.id = a.id OR o.parent_id = a.id) AS used
    FROM organizations a
    WHERE a.id = ${organizationId} AND a.type = 'AGENCY'`);
}
