import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { IdRow } from './rows.ts';
import { ToolPermission } from './tool-permissions.ts';

/*
 * Versions of an agent's definition (docs/evaluations.md, "Versions"): one immutable row per
 * change, written in the transaction of the change while it holds the agent's row lock (the
 * UPDATE of the agent, or `lockAgentInOrganization`), so numbers follow each other without gaps.
 */

/** An agent's whole definition: what a version stores and what an evaluation run tries. */
export const AgentDefinitionRow = z.strictObject({
  name: z.string(),
  description: z.string(),
  modelId: z.string().nullable(),
  instructions: z.string(),
  temperature: z.number().nullable(),
  maxOutputTokens: z.number().int().nullable(),
  guardrails: z.strictObject({ blockedTerms: z.array(z.string()), moderationModel: z.string().nullable(), refusal: z.string() }),
  tools: z.array(ToolPermission),
});
export type FullDefinition = z.infer<typeof AgentDefinitionRow>;

/** The definition of the agent `a` (an alias of `agents`) as it is stored now, as one jsonb value. */
const definitionOf = sql.fragment`
  jsonb_build_object(
    'name', a.name, 'description', a.description, 'modelId', a.model_id, 'instructions', a.instructions,
    'temperature', a.temperature, 'maxOutputTokens', a.max_output_tokens, 'guardrails', a.guardrails,
    'tools', coalesce((
      SELECT jsonb_agg(jsonb_build_object('toolName', p.tool_name, 'permissionStatus', p.permission_status,
                                          'providerKey', p.provider_key) ORDER BY p.position)
      FROM agent_tool_permissions p WHERE p.agent_id = a.id), '[]'::jsonb))`;

const Version = z.strictObject({
  version: z.number().int(),
  createdAt: z.string(),
  createdBy: z.string().nullable(),
  note: z.string().nullable(),
  definition: AgentDefinitionRow,
});

const versionColumns = sql.fragment`
  version, created_at AS "createdAt", created_by AS "createdBy", note, definition`;

const VersionNumberRow = z.strictObject({ version: z.number().int() });
const CurrentRow = z.strictObject({ definition: AgentDefinitionRow, version: z.number().int() });

/**
 * Records the agent's definition as it is now in this transaction as its next version, unless it
 * equals the latest version (a write that changed nothing is no change; `always`: recorded even
 * then, as a restore is). Call after the change, in its transaction, holding the agent's row
 * lock. Returns the new version, or null.
 */
export function recordAgentVersion(
  tx: CommonQueryMethods,
  change: { organizationId: string; agentId: string; note: string | null; createdBy: string | null; now: Date; always?: boolean },
) {
  return tx.maybeOneFirst(sql.type(VersionNumberRow)`
    WITH current AS (
      SELECT ${definitionOf} AS definition FROM agents a WHERE a.id = ${change.agentId} AND a.organization_id = ${change.organizationId}
    ), latest AS (
      SELECT version, definition FROM agent_versions WHERE agent_id = ${change.agentId} ORDER BY version DESC LIMIT 1
    )
    INSERT INTO agent_versions (agent_id, version, organization_id, definition, note, created_by, created_at)
    SELECT ${change.agentId}, coalesce((SELECT version FROM latest), 0) + 1, ${change.organizationId}, c.definition, ${change.note},
           ${change.createdBy}, ${sql.timestamp(change.now)}
    FROM current c
    WHERE ${change.always === true} OR NOT EXISTS (SELECT 1 FROM latest WHERE latest.definition = c.definition)
    RETURNING version`);
}

/** The agent's definition as it is stored now, and its latest version number (0 when none). */
export function findCurrentDefinition(db: CommonQueryMethods, organizationId: string, agentId: string) {
  return db.maybeOne(sql.type(CurrentRow)`
    SELECT ${definitionOf} AS definition,
           coalesce((SELECT max(version) FROM agent_versions v WHERE v.agent_id = a.id), 0) AS version
    FROM agents a WHERE a.id = ${agentId} AND a.organization_id = ${organizationId} AND a.archived_at IS NULL`);
}

/**
 * The agent's id when it belongs to this organization, archived or not: the one lookup that
 * reaches an archived agent, for the reads its organization keeps (its versions).
 */
export function findAgentOfOrganizationWithArchived(db: CommonQueryMethods, organizationId: string, agentId: string) {
  return db.maybeOneFirst(sql.type(IdRow)`SELECT id FROM agents WHERE id = ${agentId} AND organization_id = ${organizationId}`);
}

/** The agent's versions, newest first: `limit + 1` rows (the extra one tells `hasMore`), older than `before` when given. */
export function listAgentVersions(db: CommonQueryMethods, agentId: string, page: { limit: number; before: number | undefined }) {
  return db.any(sql.type(Version)`
    SELECT ${versionColumns} FROM agent_versions
    WHERE agent_id = ${agentId} ${page.before === undefined ? sql.fragment`` : sql.fragment`AND version < ${page.before}`}
    ORDER BY version DESC LIMIT ${page.limit + 1}`);
}

/** One version of the agent, or null. */
export function findAgentVersion(db: CommonQueryMethods, agentId: string, version: number) {
  return db.maybeOne(sql.type(Version)`
    SELECT ${versionColumns} FROM agent_versions WHERE agent_id = ${agentId} AND version = ${version}`);
}
