-- Guardrails per agent (docs/agents-and-tools.md, "Guardrails"): blocked terms, an optional
-- moderation model and the refusal a tripped message is answered with. A message's metadata (the
-- AI SDK's `metadata` of a UI message): a refused answer records which guardrail tripped.

ALTER TABLE agents ADD COLUMN guardrails jsonb NOT NULL
  DEFAULT '{"blockedTerms": [], "moderationModel": null, "refusal": "Sorry, I can''t help with that."}'::jsonb;

ALTER TABLE chat_messages ADD COLUMN metadata jsonb;
