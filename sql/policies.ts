import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const GrantedRow = z.strictObject({ granted: z.boolean() });

/** Does one of the user's roles grant `action` on `subject`? */
export async function userHasPermission(db: CommonQueryMethods, userId: string, subject: string, action: string): Promise<boolean> {
  return db.oneFirst(sql.type(GrantedRow)`
    SELECT EXISTS (
      SELECT 1
      FROM user_roles ur
      JOIN role_permissions rp ON rp.role_id = ur.role_id
      WHERE ur.user_id = ${userId} AND rp.subject = ${subject} AND rp.action = ${action}
    ) AS granted`);
}
