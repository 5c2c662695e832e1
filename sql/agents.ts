import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Agent = z.strictObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Agent = z.infer<typeof Agent>;

const agentColumns = sql.fragment`
  id, name, description, created_at AS "createdAt", updated_at AS "updatedAt"`;

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

export function insertAgent(db: CommonQueryMethods, agent: { id: string; agencyId: string; name: string; description: string }) {
  return db.one(sql.type(Agent)`
    INSERT INTO agents (id, agency_id, name, description)
    VALUES (${agent.id}, ${agent.agencyId}, ${agent.name}, ${agent.description})
    RETURNING ${agentColumns}`);
}
