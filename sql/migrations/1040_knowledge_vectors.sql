-- pgvector for the knowledge base's embedding ranking, only where the server has the extension
-- (the embedded PGlite loads it: app/db/embedded.ts; Debian 12's PostgreSQL 15 has no package).
-- Elsewhere, or where this role may not create it, nothing changes: the service keeps scanning
-- the float32 `embedding` bytes itself (docs/chat.md, "Knowledge base").
--
-- `embedding_vector` is untyped: the dimension is the configured model's, and a model change
-- leaves vectors of another length behind. HNSW indexes a column of one dimension only, so there
-- is one partial expression index (cosine) per common dimension; the search names the same cast
-- and predicate (sql/knowledge.ts), and vectors of any other dimension (or over HNSW's 2,000) are
-- ranked by pgvector's exact distance over the agent's rows.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    RETURN;
  END IF;
  BEGIN
    CREATE EXTENSION IF NOT EXISTS vector;
  EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'pgvector is available but this role may not create it: the knowledge base keeps its exact scan';
    RETURN;
  END;
  ALTER TABLE knowledge_chunks ADD COLUMN embedding_vector vector;
  -- Chunks embedded before: float32 little-endian bytes to a vector (subnormals, never met in a
  -- unit vector of a few thousand dimensions, read as 0); the bytes are not kept.
  UPDATE knowledge_chunks c
  SET embedding_vector = (
        SELECT array_agg(CASE WHEN x.e = 0 THEN 0::float8
                              ELSE (1 - 2 * (w.b >> 31))::float8 * (1 + (w.b & 8388607)::float8 / 8388608) * 2::float8 ^ (x.e - 127)
                         END ORDER BY i)::real[]::vector
        FROM generate_series(0, length(c.embedding) / 4 - 1) AS i,
             LATERAL (SELECT get_byte(c.embedding, 4 * i)::bigint + (get_byte(c.embedding, 4 * i + 1)::bigint << 8)
                             + (get_byte(c.embedding, 4 * i + 2)::bigint << 16) + (get_byte(c.embedding, 4 * i + 3)::bigint << 24) AS b) AS w,
             LATERAL (SELECT ((w.b >> 23) & 255)::int AS e) AS x),
      embedding = NULL
  WHERE c.embedding IS NOT NULL;
  CREATE INDEX knowledge_chunks_vector_256_idx ON knowledge_chunks
    USING hnsw ((embedding_vector::vector(256)) vector_cosine_ops) WHERE vector_dims(embedding_vector) = 256;
  CREATE INDEX knowledge_chunks_vector_384_idx ON knowledge_chunks
    USING hnsw ((embedding_vector::vector(384)) vector_cosine_ops) WHERE vector_dims(embedding_vector) = 384;
  CREATE INDEX knowledge_chunks_vector_512_idx ON knowledge_chunks
    USING hnsw ((embedding_vector::vector(512)) vector_cosine_ops) WHERE vector_dims(embedding_vector) = 512;
  CREATE INDEX knowledge_chunks_vector_768_idx ON knowledge_chunks
    USING hnsw ((embedding_vector::vector(768)) vector_cosine_ops) WHERE vector_dims(embedding_vector) = 768;
  CREATE INDEX knowledge_chunks_vector_1024_idx ON knowledge_chunks
    USING hnsw ((embedding_vector::vector(1024)) vector_cosine_ops) WHERE vector_dims(embedding_vector) = 1024;
  CREATE INDEX knowledge_chunks_vector_1536_idx ON knowledge_chunks
    USING hnsw ((embedding_vector::vector(1536)) vector_cosine_ops) WHERE vector_dims(embedding_vector) = 1536;
END
$$;
