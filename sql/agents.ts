import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Agent = z.strictObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  modelId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Agent = z.infer<typeof Agent>;

const agentColumns = sql.fragment`
  id, name, description, model_id AS "modelId", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The agent with this id if it belongs to this agency (another agency's agent is absent). */
export function findAgentInAgency(db: CommonQueryMethods, agencyId: string, agentId: string) {
  return db.maybeOne(sql.type(Agent)`
    SELECT ${agentColumns} FROM agents WHERE id = ${agentId} AND agency_id = ${agencyId}`);
}

/**
 * The id of this agency's agent, locked until the transaction ends: concurrent replacements
 * of its tool set run one after the other.
 */
export function lockAgentInAgency(db: CommonQueryMethods, agencyId: string, agentId: string) {
  return db.maybeOneFirst(sql.type(z.strictObject({ id: z.string() }))`
    SELECT id FROM agents WHERE id = ${agentId} AND agency_id = ${agencyId} FOR UPDATE`);
}

/** Every agent of the agency, oldest first. */
export function listAgentsOfAgency(db: CommonQueryMethods, agencyId: string) {
  return db.any(sql.type(Agent)`
    SELECT ${agentColumns} FROM agents WHERE agency_id = ${agencyId} ORDER BY created_at, id`);
}

export function insertAgent(
  db: CommonQueryMethods,
  agent: { id: string; agencyId: string; name: string; description: string; modelId?: string | null },
) {
  return db.one(sql.type(Agent)`
    INSERT INTO agents (id, agency_id, name, description, model_id)
    VALUES (${agent.id}, ${agent.agencyId}, ${agent.name}, ${agent.description}, ${agent.modelId ?? null})
    RETURNING ${agentColumns}`);
}

/** Changes the given fields of this agency's agent (`modelId: null` clears it); null when there is no such agent. */
export function updateAgent(
  db: CommonQueryMethods,
  agencyId: string,
  agentId: string,
  edit: { name?: string; description?: string; modelId?: string | null },
) {
  const sets = [
    ...(edit.name === undefined ? [] : [sql.fragment`name = ${edit.name}`]),
    ...(edit.description === undefined ? [] : [sql.fragment`description = ${edit.description}`]),
    ...(edit.modelId === undefined ? [] : [sql.fragment`model_id = ${edit.modelId}`]),
    sql.fragment`updated_at = now()`,
  ];
  return db.maybeOne(sql.type(Agent)`
    UPDATE agents SET ${sql.join(sets, sql.fragment`, `)}
    WHERE id = ${agentId} AND agency_id = ${agencyId}
    RETURNING ${agentColumns}`);
}
