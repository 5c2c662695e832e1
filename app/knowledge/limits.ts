import type { CommonQueryMethods } from 'slonik';
import { knowledgeUsage } from '../../sql/knowledge.ts';
import type { Config } from '../config.ts';
import { knowledgeLimitReached } from './errors.ts';

/** What one document adds to a knowledge base besides itself: its chunks, and their text's UTF-8 bytes as stored. */
export type Footprint = { chunks: number; textBytes: number };

/** The footprint of a document of these chunks (each chunk's heading path and text, as knowledge_chunks keeps them). */
export function footprintOf(chunks: readonly { heading: string; body: string }[]): Footprint {
  let textBytes = 0;
  for (const chunk of chunks) textBytes += Buffer.byteLength(chunk.heading, 'utf8') + Buffer.byteLength(chunk.body, 'utf8');
  return { chunks: chunks.length, textBytes };
}

const size = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${bytes} bytes`);

/**
 * Throws 409 `AI.KNOWLEDGE_LIMIT_REACHED`, naming the first limit the document would pass, when
 * the agent's or its organization's knowledge base cannot take it (config `knowledge`: documents,
 * chunks and text per agent; chunks and text per organization). An upload checks twice: before
 * it spends anything (without a lock: a full knowledge base costs no embedding), and again in its
 * transaction under the organization's lock (concurrent uploads cannot pass a limit together).
 */
export async function checkKnowledgeLimits(
  db: CommonQueryMethods,
  limits: Config['knowledge'],
  scope: { organizationId: string; agentId: string },
  footprint: Footprint,
): Promise<void> {
  const usage = await knowledgeUsage(db, scope.organizationId, scope.agentId);
  const checks: [over: boolean, limit: string][] = [
    [usage.agentDocuments + 1 > limits.maxDocumentsPerAgent, `at most ${limits.maxDocumentsPerAgent} documents per agent`],
    [usage.agentChunks + footprint.chunks > limits.maxChunksPerAgent, `at most ${limits.maxChunksPerAgent} passages per agent`],
    [
      usage.agentTextBytes + footprint.textBytes > limits.maxTextBytesPerAgent,
      `at most ${size(limits.maxTextBytesPerAgent)} of extracted text per agent`,
    ],
    [
      usage.organizationChunks + footprint.chunks > limits.maxChunksPerOrganization,
      `at most ${limits.maxChunksPerOrganization} passages per organization`,
    ],
    [
      usage.organizationTextBytes + footprint.textBytes > limits.maxTextBytesPerOrganization,
      `at most ${size(limits.maxTextBytesPerOrganization)} of extracted text per organization`,
    ],
  ];
  const passed = checks.find(([over]) => over);
  if (passed) throw knowledgeLimitReached(passed[1]);
}
