import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const AnswerRow = z.strictObject({ answer: z.literal(1) });

/** Does the database answer a query? Resolves when it does, rejects when it does not (readiness probe). */
export async function databaseAnswers(db: CommonQueryMethods): Promise<void> {
  await db.oneFirst(sql.type(AnswerRow)`SELECT 1 AS answer`);
}
