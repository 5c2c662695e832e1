-- Agents an agency can ship (docs/agents-and-tools.md, docs/chat.md): an agent's instructions
-- (its system message, verbatim), its sampling temperature and output limit (null: the
-- provider's default); a budget that stops new chat turns at its limit when `enforce` is set.

ALTER TABLE agents
  ADD COLUMN instructions text NOT NULL DEFAULT '' CHECK (length(instructions) <= 32000),
  ADD COLUMN temperature double precision CHECK (temperature IS NULL OR (temperature >= 0 AND temperature <= 2)),
  ADD COLUMN max_output_tokens integer CHECK (max_output_tokens IS NULL OR max_output_tokens BETWEEN 1 AND 128000);

ALTER TABLE usage_budgets ADD COLUMN enforce boolean NOT NULL DEFAULT false;
