import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/** Does the database answer a query? Resolves when it does, rejects when it does not (readiness probe). */
export async function databaseAnswers(db: CommonQueryMethods): Promise<void> {
  await db.oneFirst(sql.type(z.strictObject({ answer: z.literal(1) }))`SELECT 1 AS answer`);
}
