-- Built-in tools that run (docs/agents-and-tools.md): each agent's knowledge base, and the log
-- of emails agents sent (the per-organization daily limit counts it).

-- A document an agent searches. `bytes` is the size of what was uploaded; its text lives in the
-- chunks only (the upload itself is not kept).
CREATE TABLE knowledge_documents (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  content_type text NOT NULL CHECK (content_type IN ('text/plain', 'text/markdown', 'text/html', 'application/pdf')),
  bytes integer NOT NULL CHECK (bytes > 0),
  chunk_count integer NOT NULL CHECK (chunk_count > 0),
  created_at timestamptz NOT NULL
);
CREATE INDEX knowledge_documents_agent_idx ON knowledge_documents (agent_id, created_at, id);

-- One passage of a document: the heading path it sits under and its text. `search` weighs the
-- heading above the text (English stemming: "refunds" finds "refund"). `embedding` is set only
-- where AI_EMBEDDING_MODEL is configured: a unit vector as float32 little-endian bytes (the
-- service scans them itself: a dot product per row in SQL cost about 70 us at 256 dimensions).
CREATE TABLE knowledge_chunks (
  document_id uuid NOT NULL REFERENCES knowledge_documents (id) ON DELETE CASCADE,
  agent_id uuid NOT NULL,
  ordinal integer NOT NULL,
  heading text NOT NULL,
  body text NOT NULL,
  search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', heading), 'A') || setweight(to_tsvector('english', body), 'B')
  ) STORED,
  embedding bytea,
  PRIMARY KEY (document_id, ordinal)
);
CREATE INDEX knowledge_chunks_search_idx ON knowledge_chunks USING gin (search);
CREATE INDEX knowledge_chunks_agent_idx ON knowledge_chunks (agent_id);

-- Every email the send_email tool queued: one row per recipient message, counted per
-- organization per UTC day.
CREATE TABLE agent_sent_emails (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  recipients integer NOT NULL CHECK (recipients BETWEEN 1 AND 10),
  created_at timestamptz NOT NULL
);
CREATE INDEX agent_sent_emails_day_idx ON agent_sent_emails (organization_id, created_at);
