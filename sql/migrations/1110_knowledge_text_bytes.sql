-- Knowledge limits count what is stored, not what was uploaded (docs/agents-and-tools.md,
-- "Knowledge base"): `text_bytes` is the UTF-8 size of a document's chunks (each chunk's heading
-- path and text, as knowledge_chunks keeps them), summed per agent and per organization with
-- `chunk_count` when an upload is checked. Documents stored before are counted from their chunks.
ALTER TABLE knowledge_documents ADD COLUMN text_bytes bigint NOT NULL DEFAULT 0 CHECK (text_bytes >= 0);
UPDATE knowledge_documents d
SET text_bytes = (SELECT coalesce(sum(octet_length(c.heading) + octet_length(c.body)), 0) FROM knowledge_chunks c WHERE c.document_id = d.id);

-- An upload reads its agent's and its organization's totals in one index-only pass.
CREATE INDEX knowledge_documents_organization_idx ON knowledge_documents (organization_id) INCLUDE (agent_id, chunk_count, text_bytes);
