import fc from 'fast-check';
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import type { AttackCase } from './attack-cases.ts';
import { exchange, type EngineContext, type Outcome } from './engine.ts';
import { assemble, validParts, type Caller } from './valid.ts';

const Column = z.object({ table: z.string(), column: z.string() });
const RowText = z.object({ row_text: z.string() });

/** Columns through which a row belongs to an agency, directly or through its users, agents or end users. */
const OWNER_COLUMNS = ['organization_id', 'organization_id', 'parent_id', 'user_id', 'agent_id', 'end_user_id'];

/**
 * A digest of every row that belongs to `organizationId`: rows with its id in an agency column, and
 * rows of its users, agents and the end users of its agents' web channels. Equal digests before and after the run: nothing of it changed.
 */
export async function snapshotAgency(db: DatabasePool, organizationId: string): Promise<Map<string, string[]>> {
  const columns = await db.any(sql.type(Column)`
    SELECT table_name AS "table", column_name AS "column"
    FROM information_schema.columns
    WHERE table_schema = 'public' AND column_name = ANY(${sql.array(OWNER_COLUMNS, 'text')})
    ORDER BY table_name, column_name`);
  const users = sql.fragment`(SELECT id FROM users WHERE organization_id = ${organizationId})`;
  const agents = sql.fragment`(SELECT id FROM agents WHERE organization_id = ${organizationId})`;
  const endUsers = sql.fragment`(SELECT id FROM end_users WHERE organization_id = ${organizationId})`;
  const snapshot = new Map<string, string[]>();
  for (const { table, column } of columns) {
    const owned =
      column === 'user_id'
        ? sql.fragment`${sql.identifier([column])} IN ${users}`
        : column === 'end_user_id'
          ? sql.fragment`${sql.identifier([column])} IN ${endUsers}`
          : column === 'agent_id'
            ? sql.fragment`${sql.identifier([column])} IN ${agents}`
            : sql.fragment`${sql.identifier([column])} = ${organizationId}`;
    const rows = await db.any(sql.type(RowText)`
      SELECT t::text AS row_text FROM ${sql.identifier([table])} AS t WHERE ${owned} ORDER BY 1`);
    snapshot.set(
      `${table}.${column}`,
      rows.map((row) => row.row_text),
    );
  }
  // The organization's plan apart from the rest of its row: a business's plan move by its agency
  // (a right the agency has) writes only these two columns (see `siblingChangesNotByItsAgency`).
  const organization = await db.any(sql.type(RowText)`
    SELECT (to_jsonb(o) - 'plan_id' - 'updated_at')::text AS row_text FROM organizations o WHERE id = ${organizationId}
    UNION ALL
    SELECT jsonb_build_object('plan_id', plan_id, 'updated_at', updated_at)::text FROM organizations WHERE id = ${organizationId}`);
  snapshot.set('organizations.id', [organization[0]?.row_text ?? '-']);
  snapshot.set('organizations.plan_id', [organization[1]?.row_text ?? '-']);
  return snapshot;
}

/** What differs between two snapshots, one line per changed table with a removed and an added row. */
export function changedTables(before: Map<string, string[]>, after: Map<string, string[]>): string[] {
  const changes: string[] = [];
  for (const [key, rows] of before) {
    const now = after.get(key) ?? [];
    const removed = rows.filter((row) => !now.includes(row));
    const added = now.filter((row) => !rows.includes(row));
    if (removed.length || added.length) {
      changes.push(
        `${key} (-${removed.length} +${added.length}: was ${removed[0]?.slice(0, 200) ?? '-'}; now ${added[0]?.slice(0, 200) ?? '-'})`,
      );
    }
  }
  return changes;
}

const Id = z.object({ id: z.string() });

/**
 * The ids the protected agency holds for each scope name a route can declare (`x-scope`): what
 * another agency's caller puts in the scope's parameter. A scope the fuzzer does not know here
 * fails the trespass case, so a new scope cannot go untried.
 */
export async function scopedIdsOf(db: DatabasePool, organizationId: string): Promise<Map<string, string[]>> {
  const agents = await db.any(sql.type(Id)`SELECT id FROM agents WHERE organization_id = ${organizationId} ORDER BY id`);
  return new Map([['agent', agents.map((row) => row.id)]]);
}

/** Statuses the chain answers before the scope is looked up: validation, credentials, policy, body. */
const BEFORE_SCOPE = new Set([400, 401, 403, 413, 415]);
/** Draws per operation for a caller with every grant, until one reaches the scope. */
const DRAWS_TO_REACH_SCOPE = 10;

type TrespassRun = { context: EngineContext; record: (outcome: Outcome) => void; nextIndex: () => number };

/**
 * Scope trespass: every operation whose route declares a scope (read from the document, not from
 * its path), called by each caller of another agency with a valid request whose scope parameter
 * is one of the protected agency's ids. Held when every answer is the scope's 404 or a refusal the
 * chain gives before the scope, and each operation answered that 404 at least once (the scope was
 * reached, not only refused in front of it).
 */
export async function scopeTrespass(run: TrespassRun, callers: Caller[], ids: Map<string, string[]>, seed: number): Promise<AttackCase> {
  const leaks: string[] = [];
  const unreached: string[] = [];
  let sent = 0;
  let refusedByScope = 0;
  for (const operation of run.context.operations.filter((candidate) => candidate.scope)) {
    const scope = operation.scope!;
    const foreign = ids.get(scope.name) ?? [];
    if (!foreign.length) {
      leaks.push(`${operation.key}: no ids of the protected agency for scope ${scope.name}`);
      continue;
    }
    let reached = false;
    for (const caller of callers) {
      const draws = caller === callers[0] ? DRAWS_TO_REACH_SCOPE : 1;
      for (let draw = 0; draw < draws && !(reached && caller === callers[0]); draw++) {
        const index = run.nextIndex();
        const [parts] = fc.sample(validParts(operation, caller, run.context.pools), { seed: seed ^ index, numRuns: 1 });
        const id = foreign[index % foreign.length]!;
        const request = assemble(operation, caller, { ...parts!, params: { ...parts!.params, [scope.parameter]: id } }, 'scope trespass');
        const outcome = await exchange(run.context, request, index);
        run.record(outcome);
        sent++;
        const { status, text } = outcome.response;
        if (status === 404 && errorCodeOf(text) === scope.errorCode) {
          refusedByScope++;
          reached = true;
        } else if (!BEFORE_SCOPE.has(status)) {
          leaks.push(`${operation.key} as ${caller.name} with ${scope.parameter}=${id}: ${status} ${text.slice(0, 120)}`);
        }
      }
    }
    if (!reached) unreached.push(operation.key);
  }
  return {
    name: 'scope trespass',
    held: leaks.length === 0 && unreached.length === 0,
    detail:
      `${sent} requests naming Other Agency's resources in the scope parameter, ${refusedByScope} answered the scope's 404` +
      (leaks.length ? `; LEAKED: ${leaks.join('; ')}` : '') +
      (unreached.length ? `; the scope was never reached on: ${unreached.join(', ')}` : ''),
  };
}

function errorCodeOf(text: string): unknown {
  try {
    return (JSON.parse(text) as { errorCode?: unknown }).errorCode;
  } catch {
    return undefined;
  }
}
