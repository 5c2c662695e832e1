import { sql, type CommonQueryMethods, type IdentifierSqlToken } from 'slonik';
import { z } from 'zod';
import { CountRow, IdRow } from './rows.ts';

/*
 * The archive rule lives here: an archived agent (`archived_at` set) is absent for every caller.
 * Every lookup of an agent on someone's behalf (the route scope, the locks of writes under an
 * agent, the list, a channel that serves an agent) goes through `findAgentInOrganization`,
 * `lockAgentInOrganization` or `listAgentsOfOrganization`, or, from a statement of another table, through
 * `agentInUse`. Usage rows of an archived agent stay readable to analytics, which read
 * `usage_events` and only join `agents` for a name.
 */

/** What each new user message is checked against before the agent's model is called (docs/agents-and-tools.md, "Guardrails"). */
const Guardrails = z.strictObject({
  blockedTerms: z.array(z.string()),
  moderationModel: z.string().nullable(),
  refusal: z.string(),
});
export type Guardrails = z.infer<typeof Guardrails>;

const Agent = z.strictObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  modelId: z.string().nullable(),
  instructions: z.string(),
  temperature: z.number().nullable(),
  maxOutputTokens: z.number().int().nullable(),
  guardrails: Guardrails,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Agent = z.infer<typeof Agent>;

const agentColumns = sql.fragment`
  id, name, description, model_id AS "modelId", instructions, temperature, max_output_tokens AS "maxOutputTokens",
  guardrails, created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * A condition for a statement on another table: the agent `agentId` belongs to the agency
 * `organizationId` and is not archived (each a column of that table or a value).
 */
export const agentInUse = (agentId: IdentifierSqlToken | string, organizationId: IdentifierSqlToken | string) => sql.fragment`
  EXISTS (SELECT 1 FROM agents in_use WHERE in_use.id = ${agentId} AND in_use.organization_id = ${organizationId} AND in_use.archived_at IS NULL)`;

/** The agent with this id if it belongs to this agency and is not archived (another agency's agent is absent). */
export function findAgentInOrganization(db: CommonQueryMethods, organizationId: string, agentId: string) {
  return db.maybeOne(sql.type(Agent)`
    SELECT ${agentColumns} FROM agents WHERE id = ${agentId} AND organization_id = ${organizationId} AND archived_at IS NULL`);
}

/**
 * The id of this agency's agent, locked until the transaction ends: concurrent replacements
 * of its tool set run one after the other. Null for an archived agent; an archive waits for
 * the lock, so a write that holds it finishes first.
 */
export function lockAgentInOrganization(db: CommonQueryMethods, organizationId: string, agentId: string) {
  return db.maybeOneFirst(sql.type(IdRow)`
    SELECT id FROM agents WHERE id = ${agentId} AND organization_id = ${organizationId} AND archived_at IS NULL FOR UPDATE`);
}

/** Every agent of the agency that is not archived, oldest first. */
export function listAgentsOfOrganization(db: CommonQueryMethods, organizationId: string) {
  return db.any(sql.type(Agent)`
    SELECT ${agentColumns} FROM agents WHERE organization_id = ${organizationId} AND archived_at IS NULL ORDER BY created_at, id`);
}

/**
 * How many agents of the agency are not archived, counted under a lock on the organization's
 * row that the caller's transaction keeps until it ends: concurrent creates of one agency count
 * one after another, so the cap cannot be passed twice. Two statements on purpose: in READ
 * COMMITTED the count, a statement of its own, sees what a create that held the lock before
 * committed. `FOR NO KEY UPDATE`: foreign-key checks of other tables on the organization are
 * not blocked.
 */
export async function countAgentsUnderLock(tx: CommonQueryMethods, organizationId: string): Promise<number> {
  await tx.maybeOne(sql.type(IdRow)`
    SELECT id FROM organizations WHERE id = ${organizationId} FOR NO KEY UPDATE`);
  return tx.oneFirst(sql.type(CountRow)`
    SELECT count(*)::int AS n FROM agents WHERE organization_id = ${organizationId} AND archived_at IS NULL`);
}

/** Archives this agency's agent; false when it has no such agent in use (missing, another agency's, or archived already). */
export async function archiveAgent(db: CommonQueryMethods, organizationId: string, agentId: string, now: Date): Promise<boolean> {
  const archived = await db.maybeOneFirst(sql.type(IdRow)`
    UPDATE agents SET archived_at = ${sql.timestamp(now)}, updated_at = ${sql.timestamp(now)}
    WHERE id = ${agentId} AND organization_id = ${organizationId} AND archived_at IS NULL
    RETURNING id`);
  return archived !== null;
}

/** The fields a client sets on an agent (docs/agents-and-tools.md). */
export type AgentDefinition = {
  name: string;
  description: string;
  modelId: string | null;
  instructions: string;
  temperature: number | null;
  maxOutputTokens: number | null;
  guardrails: Guardrails;
};

export function insertAgent(db: CommonQueryMethods, agent: { id: string; organizationId: string } & AgentDefinition) {
  return db.one(sql.type(Agent)`
    INSERT INTO agents (id, organization_id, name, description, model_id, instructions, temperature, max_output_tokens, guardrails)
    VALUES (${agent.id}, ${agent.organizationId}, ${agent.name}, ${agent.description}, ${agent.modelId}, ${agent.instructions},
            ${agent.temperature}, ${agent.maxOutputTokens}, ${sql.jsonb(agent.guardrails)})
    RETURNING ${agentColumns}`);
}

/**
 * Changes the given fields of this agency's agent (a nullable field given `null` is cleared; the
 * given fields of `guardrails` replace those stored, the others stay); null when there is no such
 * agent in use.
 */
export function updateAgent(
  db: CommonQueryMethods,
  organizationId: string,
  agentId: string,
  edit: Partial<Omit<AgentDefinition, 'guardrails'>> & { guardrails?: Partial<Guardrails> },
) {
  const sets = [
    ...(edit.name === undefined ? [] : [sql.fragment`name = ${edit.name}`]),
    ...(edit.description === undefined ? [] : [sql.fragment`description = ${edit.description}`]),
    ...(edit.modelId === undefined ? [] : [sql.fragment`model_id = ${edit.modelId}`]),
    ...(edit.instructions === undefined ? [] : [sql.fragment`instructions = ${edit.instructions}`]),
    ...(edit.temperature === undefined ? [] : [sql.fragment`temperature = ${edit.temperature}`]),
    ...(edit.maxOutputTokens === undefined ? [] : [sql.fragment`max_output_tokens = ${edit.maxOutputTokens}`]),
    ...(edit.guardrails === undefined ? [] : [sql.fragment`guardrails = guardrails || ${sql.jsonb(edit.guardrails)}`]),
    sql.fragment`updated_at = now()`,
  ];
  return db.maybeOne(sql.type(Agent)`
    UPDATE agents SET ${sql.join(sets, sql.fragment`, `)}
    WHERE id = ${agentId} AND organization_id = ${organizationId} AND archived_at IS NULL
    RETURNING ${agentColumns}`);
}
