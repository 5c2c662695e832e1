-- The agency's clients list (GET /api/agency/businesses) counts each listed business's chat turns
-- of the month: one index range per business, never a scan of every organization's turns.
CREATE INDEX chat_turns_organization_started_idx ON chat_turns (organization_id, started_at);
-- A page of an agency's businesses, newest first.
CREATE INDEX organizations_parent_created_idx ON organizations (parent_id, created_at DESC, id DESC) WHERE parent_id IS NOT NULL;
