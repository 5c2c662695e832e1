-- Agent versions and evaluations (docs/evaluations.md).

-- One immutable row per change of an agent's definition (name, description, instructions, model
-- settings, guardrails, tool permissions), numbered 1, 2, ... per agent. `definition` is the whole
-- definition after the change, never documents or conversations. Rows are never updated or
-- deleted while the agent exists; an archived agent's versions stay.
CREATE TABLE agent_versions (
  agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  version integer NOT NULL CHECK (version >= 1),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  definition jsonb NOT NULL CHECK (jsonb_typeof(definition) = 'object'),
  note text CHECK (length(note) <= 500),
  created_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (agent_id, version)
);

-- Every agent made before versions existed starts at version 1: its definition as it is now.
INSERT INTO agent_versions (agent_id, version, organization_id, definition, note, created_by, created_at)
SELECT a.id, 1, a.organization_id,
       jsonb_build_object(
         'name', a.name, 'description', a.description, 'modelId', a.model_id, 'instructions', a.instructions,
         'temperature', a.temperature, 'maxOutputTokens', a.max_output_tokens, 'guardrails', a.guardrails,
         'tools', coalesce((
           SELECT jsonb_agg(jsonb_build_object('toolName', p.tool_name, 'permissionStatus', p.permission_status,
                                               'providerKey', p.provider_key) ORDER BY p.position)
           FROM agent_tool_permissions p WHERE p.agent_id = a.id), '[]'::jsonb)),
       NULL, NULL, a.updated_at
FROM agents a;

-- An agent's test cases: UI messages ending with a user message and what the answer must show.
CREATE TABLE agent_eval_cases (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  messages jsonb NOT NULL CHECK (jsonb_typeof(messages) = 'array'),
  expect jsonb NOT NULL CHECK (jsonb_typeof(expect) = 'object'),
  created_at timestamptz NOT NULL
);
CREATE INDEX agent_eval_cases_agent_idx ON agent_eval_cases (agent_id, created_at, id);

-- A run of cases against a definition: a job any instance may claim (`lease_until` passed, FOR
-- UPDATE SKIP LOCKED). An instance renews the lease while it runs the job; one that stops leaves
-- it to expire, and the next claim takes the run over (its finished cases are kept). A run
-- claimed too many times ends `error`.
CREATE TABLE agent_eval_runs (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('running', 'passed', 'failed', 'error')),
  version integer NOT NULL,
  definition jsonb NOT NULL,
  -- The cases as they were when the run started: deleting a case later does not change the run.
  cases jsonb NOT NULL CHECK (jsonb_typeof(cases) = 'array'),
  created_by uuid REFERENCES users (id) ON DELETE SET NULL,
  started_at timestamptz NOT NULL,
  ended_at timestamptz,
  lease_until timestamptz NOT NULL,
  claims integer NOT NULL DEFAULT 0,
  CHECK ((status = 'running') = (ended_at IS NULL))
);
CREATE INDEX agent_eval_runs_agent_idx ON agent_eval_runs (agent_id, started_at DESC, id DESC);
CREATE INDEX agent_eval_runs_running_idx ON agent_eval_runs (lease_until) WHERE status = 'running';
CREATE INDEX agent_eval_runs_organization_running_idx ON agent_eval_runs (organization_id) WHERE status = 'running';

-- One row per case of a run once it has an outcome, written as each case ends.
CREATE TABLE agent_eval_results (
  run_id uuid NOT NULL REFERENCES agent_eval_runs (id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  result jsonb NOT NULL,
  PRIMARY KEY (run_id, position)
);

-- What a usage row is beside its counts: `{ "evaluation": true }` for the model calls of an
-- evaluation run; NULL for every other row.
ALTER TABLE usage_events ADD COLUMN metadata jsonb;
