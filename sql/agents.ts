import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { IdRow } from './rows.ts';

const Agent = z.strictObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  modelId: z.string().nullable(),
  instructions: z.string(),
  temperature: z.number().nullable(),
  maxOutputTokens: z.number().int().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Agent = z.infer<typeof Agent>;

const agentColumns = sql.fragment`
  id, name, description, model_id AS "modelId", instructions, temperature, max_output_tokens AS "maxOutputTokens",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

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
  return db.maybeOneFirst(sql.type(IdRow)`
    SELECT id FROM agents WHERE id = ${agentId} AND agency_id = ${agencyId} FOR UPDATE`);
}

/** Every agent of the agency, oldest first. */
export function listAgentsOfAgency(db: CommonQueryMethods, agencyId: string) {
  return db.any(sql.type(Agent)`
    SELECT ${agentColumns} FROM agents WHERE agency_id = ${agencyId} ORDER BY created_at, id`);
}

/** The fields a client sets on an agent (docs/agents-and-tools.md). */
export type AgentDefinition = {
  name: string;
  description: string;
  modelId: string | null;
  instructions: string;
  temperature: number | null;
  maxOutputTokens: number | null;
};

export function insertAgent(db: CommonQueryMethods, agent: { id: string; agencyId: string } & AgentDefinition) {
  return db.one(sql.type(Agent)`
    INSERT INTO agents (id, agency_id, name, description, model_id, instructions, temperature, max_output_tokens)
    VALUES (${agent.id}, ${agent.agencyId}, ${agent.name}, ${agent.description}, ${agent.modelId}, ${agent.instructions},
            ${agent.temperature}, ${agent.maxOutputTokens})
    RETURNING ${agentColumns}`);
}

/** Changes the given fields of this agency's agent (a nullable field given `null` is cleared); null when there is no such agent. */
export function updateAgent(db: CommonQueryMethods, agencyId: string, agentId: string, edit: Partial<AgentDefinition>) {
  const sets = [
    ...(edit.name === undefined ? [] : [sql.fragment`name = ${edit.name}`]),
    ...(edit.description === undefined ? [] : [sql.fragment`description = ${edit.description}`]),
    ...(edit.modelId === undefined ? [] : [sql.fragment`model_id = ${edit.modelId}`]),
    ...(edit.instructions === undefined ? [] : [sql.fragment`instructions = ${edit.instructions}`]),
    ...(edit.temperature === undefined ? [] : [sql.fragment`temperature = ${edit.temperature}`]),
    ...(edit.maxOutputTokens === undefined ? [] : [sql.fragment`max_output_tokens = ${edit.maxOutputTokens}`]),
    sql.fragment`updated_at = now()`,
  ];
  return db.maybeOne(sql.type(Agent)`
    UPDATE agents SET ${sql.join(sets, sql.fragment`, `)}
    WHERE id = ${agentId} AND agency_id = ${agencyId}
    RETURNING ${agentColumns}`);
}
