import { z } from 'zod';

/*
 * The one-column rows many statements answer (an id returned by a write, a lock taken, a count,
 * a presence test), built once here instead of a copy beside every function. A domain's own rows
 * stay beside their SQL.
 */

/** `RETURNING id` (or an id selected `AS id`). */
export const IdRow = z.strictObject({ id: z.string() });
/** `pg_try_advisory_xact_lock(...) AS locked`. */
export const LockedRow = z.strictObject({ locked: z.boolean() });
/** `count(*)::int AS n`. */
export const CountRow = z.strictObject({ n: z.number() });
/** `EXISTS (...) AS present`. */
export const PresentRow = z.strictObject({ present: z.boolean() });
