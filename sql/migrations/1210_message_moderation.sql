-- A user message's moderation verdict (docs/agents-and-tools.md, "Guardrails"): the model that
-- judged it and whether it said unsafe, so a turn that answers the message again (a regenerate, a
-- continuation after an approval) reuses the verdict instead of calling the model again. Never
-- answered to a client; null until a moderation check answered (a failed check stores nothing).

ALTER TABLE chat_messages ADD COLUMN moderation jsonb;
