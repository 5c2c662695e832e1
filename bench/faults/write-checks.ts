import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import type { Sample } from './load.ts';
import type { Check } from './report.ts';

const ToolRow = z.object({ toolName: z.string(), permissionStatus: z.string(), providerKey: z.string() });
const AgentRow = z.object({ id: z.string(), name: z.string() });
const NameCount = z.object({ name: z.string(), copies: z.number() });

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Every acknowledged write is in the database afterwards: each agent created with 201 exists
 * under its name, and each worker's tool set is the last one acknowledged with 200, or one sent
 * after it whose answer was not a 200 (a connection lost while COMMIT was in flight leaves the
 * outcome unknown, ADR 0065). Creates are sent with an Idempotency-Key and retried after a 503
 * (ADR 0120): no agent name may be stored twice, and each retried create ends in a 201.
 */
export async function writeChecks(db: DatabasePool, samples: Sample[]): Promise<Check[]> {
  const stored = await db.any(sql.type(AgentRow)`SELECT id, name FROM agents WHERE name LIKE 'bench w%'`);
  const byName = new Map(stored.map((row) => [row.name, row.id]));
  // A create answered 503 or not at all is retried under its key: its last attempt is its outcome.
  const attempts = samples.filter((s) => s.kind === 'create-agent');
  const lastAttempt = new Map(attempts.map((s) => [s.write!.name!, s]));
  const creates = [...lastAttempt.values()];
  const retriedNames = new Set(attempts.filter((s) => (s.attempt ?? 0) > 0).map((s) => s.write!.name!));
  const copies = await db.any(sql.type(NameCount)`
    SELECT name, count(*)::int AS copies FROM agents WHERE name LIKE 'bench w%' GROUP BY name HAVING count(*) > 1`);
  const acknowledged = creates.filter((s) => s.status === 201);
  const missing = acknowledged.filter((s) => byName.get(s.write!.name!) !== s.write!.agentId);
  const refused = creates.filter((s) => s.status === 503);
  const refusedPresent = refused.filter((s) => byName.has(s.write!.name!));

  const puts = samples.filter((s) => s.kind === 'put-tools');
  const agents = [...new Set(puts.map((s) => s.write!.agentId!))];
  let wrong = 0;
  let unknownOutcome = 0;
  for (const agentId of agents) {
    const sequence = puts.filter((s) => s.write!.agentId === agentId).sort((a, b) => a.startMs - b.startMs);
    const lastAcknowledged = sequence.findLastIndex((s) => s.status === 200);
    const actual = await db.any(sql.type(ToolRow)`
      SELECT tool_name AS "toolName", permission_status AS "permissionStatus", provider_key AS "providerKey"
      FROM agent_tool_permissions WHERE agent_id = ${agentId} ORDER BY position`);
    const candidates = sequence.slice(Math.max(lastAcknowledged, 0));
    const match = candidates.findIndex((s) => same(s.write!.tools, actual));
    if (match === -1) wrong++;
    else if (match > 0) unknownOutcome++;
  }
  return [
    {
      name: 'creates retried under their Idempotency-Key after 503s are stored once',
      ok: copies.length === 0 && creates.filter((s) => retriedNames.has(s.write!.name!) && s.status !== 201).length === 0,
      detail: `${retriedNames.size} creates retried (${attempts.length - creates.length} retries, ${attempts.filter((s) => s.replayed).length} answered as replays); ${copies.length} names stored more than once; ${creates.filter((s) => retriedNames.has(s.write!.name!) && s.status !== 201).length} retried creates without a final 201`,
    },
    {
      name: 'every acknowledged agent creation is stored',
      ok: missing.length === 0,
      detail: `${acknowledged.length} acknowledged, ${missing.length} missing; ${refused.length} answered 503, ${refusedPresent.length} of them stored (COMMIT in flight)`,
    },
    {
      name: 'every tool set is the last acknowledged one',
      ok: wrong === 0,
      detail: `${puts.filter((s) => s.status === 200).length} PUTs acknowledged over ${agents.length} agents; ${wrong} sets differ, ${unknownOutcome} hold a later unacknowledged PUT`,
    },
  ];
}
