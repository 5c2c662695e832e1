import { int, variable } from './env-variable.ts';

/**
 * The knowledge base's environment variables (`Config['knowledge']`): the storage, reader and search
 * bounds of app/knowledge, declared like every other variable of app/config-variables.ts.
 */
export const KNOWLEDGE_VARIABLES = {
  maxDocumentsPerAgent: variable('KNOWLEDGE_MAX_DOCUMENTS_PER_AGENT', int(1, 10_000_000), {
    default: '10000',
    meaning:
      "documents one agent's knowledge base holds; an upload past it is 409 `AI.KNOWLEDGE_LIMIT_REACHED` ([agents-and-tools.md](agents-and-tools.md#knowledge-base))",
  }),
  maxChunksPerAgent: variable('KNOWLEDGE_MAX_CHUNKS_PER_AGENT', int(1, 100_000_000), {
    default: '100000',
    meaning: "passages (chunks of about 1,200 characters) one agent's documents hold together, checked before anything is embedded",
  }),
  maxTextBytesPerAgent: variable(
    'KNOWLEDGE_MAX_TEXT_MB_PER_AGENT',
    int(1, 1_048_576).transform((mb) => mb * 1024 * 1024),
    {
      default: '100',
      meaning:
        "MiB of extracted text (UTF-8, each passage's heading path and text as stored) one agent's documents hold together, whatever the uploaded files weighed",
    },
  ),
  maxChunksPerOrganization: variable('KNOWLEDGE_MAX_CHUNKS_PER_ORGANIZATION', int(1, 1_000_000_000), {
    default: '500000',
    meaning: "passages all of an organization's agents hold together",
  }),
  maxTextBytesPerOrganization: variable(
    'KNOWLEDGE_MAX_TEXT_MB_PER_ORGANIZATION',
    int(1, 1_048_576).transform((mb) => mb * 1024 * 1024),
    {
      default: '500',
      meaning: "MiB of extracted text all of an organization's agents hold together",
    },
  ),
  searchTimeoutMs: variable('KNOWLEDGE_SEARCH_TIMEOUT_MS', int(10, 60_000), {
    default: '2000',
    meaning:
      '`statement_timeout` of each statement of a knowledge search; a search past it ends the `search_knowledge_base` call `output-error` with a message the model reads',
  }),
  searchesPerOrganization: variable('KNOWLEDGE_SEARCHES_PER_ORGANIZATION', int(1, 1000), {
    default: '2',
    meaning:
      "knowledge searches of one organization that run at once in one instance; the next wait their turn (at most 32; one more ends `output-error` at once), so one tenant's parallel chat turns cannot take the database from the others",
  }),
  exactScanMaxChunks: variable('KNOWLEDGE_EXACT_SCAN_MAX_CHUNKS', int(0, 1_000_000), {
    default: '10000',
    meaning:
      'without pgvector: most embedded passages of an agent whose embeddings a search scans in the service; above it the search ranks by full-text only (logged), and the question is not embedded',
  }),
  readers: variable('DOCUMENT_READERS', int(1, 256), {
    absent: 'one per core (`os.availableParallelism()`)',
    meaning:
      'uploaded documents read at once, each in a process of its own bounded in time and memory ([agents-and-tools.md](agents-and-tools.md#knowledge-base))',
  }),
  readerQueue: variable('DOCUMENT_READER_QUEUE', int(0, 10_000), {
    default: '8',
    meaning: 'uploads that may wait for a free reader; past them an upload is 503 `CORE.SERVICE_UNAVAILABLE` with `Retry-After`',
  }),
  readTimeoutMs: variable('DOCUMENT_READ_TIMEOUT_MS', int(100, 600_000), {
    default: '15000',
    meaning:
      "longest one document's reading (text, chunks) may take; then its process is killed and the upload is 400 `AI.DOCUMENT_INVALID`",
  }),
  readerMemoryMb: variable('DOCUMENT_READER_MEMORY_MB', int(128, 65_536), {
    default: '512',
    meaning:
      "most resident memory (MiB, ArrayBuffers included) of one reader's process; past it the process is killed and the upload is 400 `AI.DOCUMENT_INVALID`",
  }),
};
