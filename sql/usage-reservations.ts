import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { tokensCost } from './usage-events.ts';

/*
 * Reservations of an enforced budget (migration 1100): a model call's worst-case cost held against
 * the month's spend while the call runs, settled to its actual cost after it, and released by the
 * statement that writes the call's usage row.
 */

const ReserveRow = z.strictObject({
  reserved: z.boolean(),
  enforced: z.boolean(),
  spentUsd: z.number().nullable(),
  limitUsd: z.number().nullable(),
});

/**
 * Reserves the worst case of one call: `inputTokens` at the model's input price (its cached-input
 * price when dearer) plus `outputTokens` at its output price (0 for a model without a price), when the organization's
 * budget is enforced and the month `[from, to)` has room for it. One round trip, atomic across
 * processes (`reserve_usage` locks the budget row). `spentUsd` counts the live reservations.
 */
export function reserveUsage(
  db: CommonQueryMethods,
  call: {
    id: string;
    organizationId: string;
    modelId: string;
    inputTokens: number;
    outputTokens: number;
    from: Date;
    to: Date;
    now: Date;
    expiresAt: Date;
  },
) {
  // The worst case: every input token at the dearer of the input and cached-input prices (so any
  // split of `inputTokens` between the two costs no more: app/metering/meter.ts, `mustSettle`), the
  // whole output limit.
  const worstCase = {
    input: sql.fragment`${call.inputTokens}::int8`,
    output: sql.fragment`${call.outputTokens}::int8`,
    cacheRead: sql.fragment`0`,
  };
  return db.one(sql.type(ReserveRow)`
    SELECT r.reserved, r.enforced, r.spent_usd::float8 AS "spentUsd", r.limit_usd::float8 AS "limitUsd"
    FROM reserve_usage(${call.id}, ${call.organizationId},
      coalesce((SELECT ${tokensCost(worstCase, sql.fragment`w`)}
                FROM (SELECT greatest(input_usd_per_mtok, cache_read_usd_per_mtok) AS input_usd_per_mtok, output_usd_per_mtok,
                             cache_read_usd_per_mtok
                      FROM model_pricing WHERE model_id = ${call.modelId}) w), 0),
      ${sql.timestamp(call.from)}, ${sql.timestamp(call.to)}, ${sql.timestamp(call.now)}, ${sql.timestamp(call.expiresAt)}) r`);
}

/** Settles a reservation to the actual cost of its call (the tokens the provider reported); nothing when it is gone. */
export async function settleReservation(
  db: CommonQueryMethods,
  call: { id: string; modelId: string; inputTokens: number; outputTokens: number; cacheReadTokens: number },
): Promise<void> {
  const tokens = {
    input: sql.fragment`${call.inputTokens}::int8`,
    output: sql.fragment`${call.outputTokens}::int8`,
    cacheRead: sql.fragment`${call.cacheReadTokens}::int8`,
  };
  await db.query(sql.unsafe`
    UPDATE usage_reservations SET amount_usd = coalesce(
      (SELECT ${tokensCost(tokens, sql.fragment`p`)} FROM model_pricing p WHERE p.model_id = ${call.modelId}), 0)
    WHERE id = ${call.id}`);
}

/** A data-modifying CTE (for `insertUsageEvents`' `alongside`) that releases the reservations `ids`. */
export const releaseReservations = (ids: readonly string[]) =>
  sql.fragment`released_reservations AS (DELETE FROM usage_reservations WHERE id = ANY(${sql.array([...ids], 'uuid')}) RETURNING 1)`;

/** Releases reservations on their own, without a usage row (the chat bench's statement timings). */
export async function deleteReservations(db: CommonQueryMethods, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(sql.unsafe`DELETE FROM usage_reservations WHERE id = ANY(${sql.array([...ids], 'uuid')})`);
}

/** Deletes the reservations that ran out before `now` (their writer died); returns how many. */
export async function deleteExpiredReservations(db: CommonQueryMethods, now: Date): Promise<number> {
  const result = await db.query(sql.unsafe`DELETE FROM usage_reservations WHERE expires_at <= ${sql.timestamp(now)}`);
  return result.rowCount;
}
