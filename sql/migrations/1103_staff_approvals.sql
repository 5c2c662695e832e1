-- Staff in the loop (docs/chat.md, "Who answers an approval"): an approval of an end user's turn
-- is answered by the organization's staff, who are recorded (`answered_by`); the staff hear of a
-- pending one by email at most once per conversation per 10 minutes (`approval_notifications`).
-- End users' usage is read by end user (`GET /api/ai/org-usage/end-users`).

ALTER TABLE tool_approvals ADD COLUMN answered_by uuid REFERENCES users (id) ON DELETE SET NULL;
CREATE INDEX tool_approvals_end_user_recent_idx ON tool_approvals (created_at DESC, id DESC) WHERE end_user_id IS NOT NULL;
CREATE INDEX tool_approvals_end_user_expiry_idx ON tool_approvals (created_at) WHERE end_user_id IS NOT NULL AND answered_at IS NULL;

CREATE TABLE approval_notifications (
  conversation_id uuid PRIMARY KEY REFERENCES chat_conversations (id) ON DELETE CASCADE,
  sent_at timestamptz NOT NULL
);

CREATE INDEX usage_events_end_user_idx ON usage_events (organization_id, created_at)
  INCLUDE (end_user_id, input_tokens, output_tokens, cache_read_tokens, cost_usd)
  WHERE end_user_id IS NOT NULL;
