import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { AgentDefinitionRow } from './agent-versions.ts';
import { CountRow, IdRow } from './rows.ts';

/*
 * An agent's test cases and evaluation runs (docs/evaluations.md). A run is a job in PostgreSQL:
 * any instance claims one whose lease has passed (`claimRun`, FOR UPDATE SKIP LOCKED), renews the
 * lease while it runs it, and writes each case's result as the case ends.
 */

const UiText = z.strictObject({ type: z.literal('text'), text: z.string() });
const CaseMessage = z.strictObject({ id: z.string(), role: z.enum(['user', 'assistant']), parts: z.array(UiText) });
export type CaseMessage = z.infer<typeof CaseMessage>;

export const Expectations = z.strictObject({
  contains: z.array(z.string()).optional(),
  notContains: z.array(z.string()).optional(),
  toolCalls: z.array(z.string()).optional(),
  noToolCalls: z.boolean().optional(),
  judge: z.string().optional(),
});
export type Expectations = z.infer<typeof Expectations>;

const EvalCase = z.strictObject({
  id: z.string(),
  name: z.string(),
  messages: z.array(CaseMessage),
  expect: Expectations,
  createdAt: z.string(),
});
export type EvalCase = z.infer<typeof EvalCase>;

const caseColumns = sql.fragment`id, name, messages, expect, created_at AS "createdAt"`;

/** How many cases the agent has; call holding the agent's row lock (`lockAgentInOrganization`), so concurrent adds count one after another. */
export function countCasesOfAgent(tx: CommonQueryMethods, agentId: string) {
  return tx.oneFirst(sql.type(CountRow)`SELECT count(*)::int AS n FROM agent_eval_cases WHERE agent_id = ${agentId}`);
}

export function insertCase(
  tx: CommonQueryMethods,
  row: { id: string; organizationId: string; agentId: string; name: string; messages: CaseMessage[]; expect: Expectations; now: Date },
) {
  return tx.one(sql.type(EvalCase)`
    INSERT INTO agent_eval_cases (id, organization_id, agent_id, name, messages, expect, created_at)
    VALUES (${row.id}, ${row.organizationId}, ${row.agentId}, ${row.name}, ${sql.jsonb(row.messages)}, ${sql.jsonb(row.expect)},
            ${sql.timestamp(row.now)})
    RETURNING ${caseColumns}`);
}

/** The agent's cases, oldest first. */
export function listCasesOfAgent(db: CommonQueryMethods, agentId: string) {
  return db.any(sql.type(EvalCase)`SELECT ${caseColumns} FROM agent_eval_cases WHERE agent_id = ${agentId} ORDER BY created_at, id`);
}

/** Deletes one case of the agent; false when it has none with this id. */
export async function deleteCase(db: CommonQueryMethods, agentId: string, caseId: string): Promise<boolean> {
  const deleted = await db.maybeOneFirst(sql.type(IdRow)`
    DELETE FROM agent_eval_cases WHERE id = ${caseId} AND agent_id = ${agentId} RETURNING id`);
  return deleted !== null;
}

const ConversationMessages = z.strictObject({
  messages: z.array(z.strictObject({ id: z.string(), role: z.enum(['user', 'assistant']), parts: z.array(z.unknown()) })),
});

/**
 * The messages of a conversation of the agent, oldest first, when the organization has it:
 * `conversationId` is an end user's conversation (the service's id) or a conversation of
 * `userId` (its own id). Null when neither exists.
 */
export function findConversationMessagesForCase(
  db: CommonQueryMethods,
  owner: { organizationId: string; agentId: string; userId: string },
  conversationId: string,
) {
  const serviceId = z.string().uuid().safeParse(conversationId).success ? conversationId : null;
  return db.maybeOneFirst(sql.type(ConversationMessages)`
    SELECT coalesce((SELECT jsonb_agg(jsonb_build_object('id', m.id, 'role', m.role, 'parts', m.parts) ORDER BY m.created_at, m.id)
                     FROM chat_messages m WHERE m.conversation_id = c.id), '[]'::jsonb) AS messages
    FROM chat_conversations c
    WHERE c.organization_id = ${owner.organizationId} AND c.agent_id = ${owner.agentId}
      AND ((c.end_user_id IS NOT NULL AND c.id = ${serviceId}::uuid) OR (c.user_id = ${owner.userId} AND c.client_id = ${conversationId}))
    LIMIT 1`);
}

/** One case of a run as the run keeps it (the case may be deleted later). */
export const RunCase = z.strictObject({ id: z.string(), name: z.string(), messages: z.array(CaseMessage), expect: Expectations });
export type RunCase = z.infer<typeof RunCase>;

/** A case's outcome (docs/evaluations.md, "Runs"). */
export const CaseResult = z.strictObject({
  caseId: z.string(),
  name: z.string(),
  passed: z.boolean(),
  reasons: z.array(z.string()),
  answer: z.string(),
  toolCalls: z.array(z.strictObject({ toolName: z.string(), input: z.unknown() })),
  judge: z.strictObject({ passed: z.boolean(), reason: z.string() }).nullable(),
  usage: z.strictObject({ totalTokens: z.number(), costUsd: z.number() }),
  /** The case could not run (a provider failure, a refused budget, the deadline): the run ends `error`. */
  error: z.boolean(),
});
export type CaseResult = z.infer<typeof CaseResult>;

export const RUN_STATUSES = ['running', 'passed', 'failed', 'error'] as const;

/**
 * How many runs of the organization are running, counted under a lock on its row that the
 * caller's transaction keeps: concurrent starts of one organization count one after another.
 */
export async function countRunningRunsUnderLock(tx: CommonQueryMethods, organizationId: string): Promise<number> {
  await tx.maybeOne(sql.type(IdRow)`SELECT id FROM organizations WHERE id = ${organizationId} FOR NO KEY UPDATE`);
  return tx.oneFirst(sql.type(CountRow)`
    SELECT count(*)::int AS n FROM agent_eval_runs WHERE organization_id = ${organizationId} AND status = 'running'`);
}

export function insertRun(
  tx: CommonQueryMethods,
  run: {
    id: string;
    organizationId: string;
    agentId: string;
    version: number;
    definition: z.infer<typeof AgentDefinitionRow>;
    cases: RunCase[];
    createdBy: string;
    now: Date;
  },
) {
  return tx.query(sql.unsafe`
    INSERT INTO agent_eval_runs (id, organization_id, agent_id, status, version, definition, cases, created_by, started_at, lease_until)
    VALUES (${run.id}, ${run.organizationId}, ${run.agentId}, 'running', ${run.version}, ${sql.jsonb(run.definition)},
            ${sql.jsonb(run.cases)}, ${run.createdBy}, ${sql.timestamp(run.now)}, ${sql.timestamp(run.now)})`);
}

const ClaimedRun = z.strictObject({
  id: z.string(),
  organizationId: z.string(),
  agentId: z.string(),
  createdBy: z.string().nullable(),
  definition: AgentDefinitionRow,
  cases: z.array(RunCase),
  claims: z.number().int(),
  done: z.array(z.number().int()),
});
export type ClaimedRun = z.infer<typeof ClaimedRun>;

/**
 * Claims one running run whose lease has passed (`runId`: only that one) until `leaseUntil`,
 * counting the claim; with the positions of its cases that have a result already. Rows another
 * instance is claiming are skipped, never waited for.
 */
export function claimRun(db: CommonQueryMethods, claim: { now: Date; leaseUntil: Date; runId?: string }) {
  const only = claim.runId === undefined ? sql.fragment`` : sql.fragment`AND id = ${claim.runId}`;
  return db.maybeOne(sql.type(ClaimedRun)`
    UPDATE agent_eval_runs r SET lease_until = ${sql.timestamp(claim.leaseUntil)}, claims = r.claims + 1
    WHERE r.id = (
      SELECT id FROM agent_eval_runs
      WHERE status = 'running' AND lease_until <= ${sql.timestamp(claim.now)} ${only}
      ORDER BY lease_until LIMIT 1
      FOR UPDATE SKIP LOCKED)
    RETURNING r.id, r.organization_id AS "organizationId", r.agent_id AS "agentId", r.created_by AS "createdBy", r.definition, r.cases,
              r.claims, coalesce((SELECT array_agg(position) FROM agent_eval_results WHERE run_id = r.id), '{}') AS done`);
}

/** Extends the leases of these running runs (this instance runs them). */
export async function renewRunLeases(db: CommonQueryMethods, runIds: readonly string[], leaseUntil: Date): Promise<void> {
  if (runIds.length === 0) return;
  await db.query(sql.unsafe`
    UPDATE agent_eval_runs SET lease_until = ${sql.timestamp(leaseUntil)}
    WHERE id = ANY(${sql.array([...runIds], 'uuid')}) AND status = 'running'`);
}

/** Records one case's outcome (a case taken over and run again keeps its first outcome). */
export async function insertCaseResult(db: CommonQueryMethods, runId: string, position: number, result: CaseResult): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO agent_eval_results (run_id, position, result) VALUES (${runId}, ${position}, ${JSON.stringify(result)}::jsonb)
    ON CONFLICT DO NOTHING`);
}

/**
 * Ends a running run: `error` when a case errored or the run could not finish, else `failed` when a
 * case failed, else `passed` (from the stored results; `forceError` for a run given up).
 */
const StatusRow = z.strictObject({ status: z.enum(RUN_STATUSES) });

export function endRun(db: CommonQueryMethods, runId: string, now: Date, forceError = false) {
  return db.maybeOneFirst(sql.type(StatusRow)`
    UPDATE agent_eval_runs r SET ended_at = ${sql.timestamp(now)}, status = CASE
      WHEN ${forceError} OR EXISTS (SELECT 1 FROM agent_eval_results x WHERE x.run_id = r.id AND (x.result->>'error')::boolean) THEN 'error'
      WHEN (SELECT count(*) FROM agent_eval_results x WHERE x.run_id = r.id) < jsonb_array_length(r.cases) THEN 'error'
      WHEN EXISTS (SELECT 1 FROM agent_eval_results x WHERE x.run_id = r.id AND NOT (x.result->>'passed')::boolean) THEN 'failed'
      ELSE 'passed' END
    WHERE r.id = ${runId} AND r.status = 'running'
    RETURNING r.status`);
}

/** Gives a run's lease back (this instance stops): another claims it at once. */
export async function releaseRun(db: CommonQueryMethods, runId: string, now: Date): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE agent_eval_runs SET lease_until = ${sql.timestamp(now)} WHERE id = ${runId} AND status = 'running'`);
}

const RunDetail = z.strictObject({
  id: z.string(),
  status: z.enum(RUN_STATUSES),
  version: z.number().int(),
  definition: AgentDefinitionRow,
  results: z.array(CaseResult),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
});

/** One run of the agent with the results so far, in the order of its cases. */
export function findRun(db: CommonQueryMethods, agentId: string, runId: string) {
  return db.maybeOne(sql.type(RunDetail)`
    SELECT r.id, r.status, r.version, r.definition,
           coalesce((SELECT jsonb_agg(x.result ORDER BY x.position) FROM agent_eval_results x WHERE x.run_id = r.id), '[]'::jsonb) AS results,
           r.started_at AS "startedAt", r.ended_at AS "endedAt"
    FROM agent_eval_runs r WHERE r.id = ${runId} AND r.agent_id = ${agentId}`);
}

const RunSummary = z.strictObject({ id: z.string(), status: z.enum(RUN_STATUSES), startedAt: z.string(), endedAt: z.string().nullable() });

/** The agent's newest `limit` runs, newest first. */
export function listRuns(db: CommonQueryMethods, agentId: string, limit: number) {
  return db.any(sql.type(RunSummary)`
    SELECT id, status, started_at AS "startedAt", ended_at AS "endedAt"
    FROM agent_eval_runs WHERE agent_id = ${agentId} ORDER BY started_at DESC, id DESC LIMIT ${limit}`);
}

const GateRow = z.strictObject({ agentId: z.string(), status: z.enum(RUN_STATUSES), definition: AgentDefinitionRow });

/** A run of the organization as the gate reads it: its agent, status and definition. */
export function findRunForGate(db: CommonQueryMethods, organizationId: string, runId: string) {
  return db.maybeOne(sql.type(GateRow)`
    SELECT agent_id AS "agentId", status, definition FROM agent_eval_runs WHERE id = ${runId} AND organization_id = ${organizationId}`);
}

const Price = z.strictObject({
  modelId: z.string(),
  inputUsdPerMTok: z.number(),
  outputUsdPerMTok: z.number(),
  cacheReadUsdPerMTok: z.number(),
});
export type ModelPrices = Map<string, z.infer<typeof Price>>;

/** The prices of these models (USD per million tokens), by model id; a model without a price is absent. */
export async function findModelPrices(db: CommonQueryMethods, modelIds: readonly string[]): Promise<ModelPrices> {
  const rows = await db.any(sql.type(Price)`
    SELECT model_id AS "modelId", input_usd_per_mtok::float8 AS "inputUsdPerMTok", output_usd_per_mtok::float8 AS "outputUsdPerMTok",
           cache_read_usd_per_mtok::float8 AS "cacheReadUsdPerMTok"
    FROM model_pricing WHERE model_id = ANY(${sql.array([...modelIds], 'text')})`);
  return new Map(rows.map((row) => [row.modelId, row]));
}
