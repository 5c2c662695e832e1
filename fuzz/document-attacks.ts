import { AGENTS } from '../seeds/demo-fixtures.ts';
import type { AttackCase } from './attack-cases.ts';
import { flateBombPdf, hostileDocuments, uploadBody, type DocumentUpload } from './document-bombs.ts';
import { exchange, type EngineContext, type Outcome } from './engine.ts';
import type { FuzzResponse } from './send.ts';
import type { Caller } from './valid.ts';

type Run = { context: EngineContext; record: (outcome: Outcome) => void; nextIndex: () => number };

/** Longest a health check may wait while a document is read; the review saw 18.86 s. */
const HEALTH_BOUND_MS = 1_000;
/** Most the process may grow while the documents are read (their readers are processes of their own); the review saw 2 GB. */
const RSS_BOUND_MB = 300;

/**
 * Hostile documents (issue 47): the review's text and HTML that made the heading pattern
 * backtrack (and their 1 MiB variants), and its PDF of a 1 GiB FlateDecode stream, uploaded one
 * after the other by `owner` to an agent it creates while `/api/health` is polled back to back.
 * Held when each answers 201 or 400 `AI.DOCUMENT_INVALID` (the PDF a 400 naming the
 * decompression bomb), every health check is 200 within `HEALTH_BOUND_MS`, and RSS grows less
 * than `RSS_BOUND_MB`.
 */
export async function hostileDocumentUploads(run: Run, owner: Caller): Promise<AttackCase> {
  const bomb: DocumentUpload = {
    label: 'PDF of a 1 GiB FlateDecode stream',
    name: 'bomb.pdf',
    type: 'application/pdf',
    body: flateBombPdf(),
  };
  const documents = [...hostileDocuments(), bomb];
  const name = `hostile documents: ${documents.length} uploads (the review's heading text and HTML, 1 MiB variants, a 1 GiB-stream PDF), health polled`;
  // An agent in use: the fuzzed DELETE /api/ai/agents/{agentId} may have archived the demo ones.
  const agentId = await agentInUse(run, owner);
  const target = `/api/ai/agents/${agentId}/documents`;
  const rssBefore = process.memoryUsage().rss;
  const health: FuzzResponse[] = [];
  let done = false;
  const polling = (async () => {
    while (!done) {
      health.push(
        await run.context.send({
          operation: 'GET /api/health',
          kind: 'check',
          principal: 'anonymous',
          method: 'GET',
          target: '/api/health',
          headers: {},
        }),
      );
    }
  })();
  const answers: Array<{ document: DocumentUpload; response: FuzzResponse }> = [];
  try {
    for (const document of documents) {
      const { contentType, body } = uploadBody(document);
      const outcome = await exchange(
        run.context,
        {
          operation: 'POST /api/ai/agents/{agentId}/documents',
          kind: 'hostile document',
          principal: owner.name,
          method: 'POST',
          target,
          headers: { authorization: `Bearer ${owner.token!}`, 'content-type': contentType },
          body,
        },
        run.nextIndex(),
      );
      run.record(outcome);
      answers.push({ document, response: outcome.response });
    }
  } finally {
    done = true;
    await polling;
  }
  const rssGrowthMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  const slowestHealth = Math.max(0, ...health.map((check) => check.durationMs));
  const errorCodeOf = (text: string) => {
    try {
      return (JSON.parse(text) as { errorCode?: string }).errorCode;
    } catch {
      return undefined;
    }
  };
  const answered = answers.every(
    ({ response }) => response.status === 201 || (response.status === 400 && errorCodeOf(response.text) === 'AI.DOCUMENT_INVALID'),
  );
  const bombAnswer = answers.at(-1)!.response;
  return {
    name,
    held:
      answered &&
      bombAnswer.status === 400 &&
      bombAnswer.text.includes('decompression bomb') &&
      health.every((check) => check.status === 200),
    withinBounds: slowestHealth < HEALTH_BOUND_MS && rssGrowthMb < RSS_BOUND_MB,
    detail:
      `${answers.map(({ response }) => `${response.status} in ${response.durationMs.toFixed(0)} ms`).join(', ')}; ` +
      `${health.length} health checks, slowest ${slowestHealth.toFixed(1)} ms; RSS ${rssGrowthMb >= 0 ? '+' : ''}${rssGrowthMb.toFixed(0)} MB`,
  };
}

/** One of the owner's agents in use (the first listed), or one made for the attack when the fuzzer archived them all. */
async function agentInUse(run: Run, owner: Caller): Promise<string> {
  const request = (method: 'GET' | 'POST', body?: string) =>
    run.context.send({
      operation: `${method} /api/ai/agents`,
      kind: 'setup',
      principal: owner.name,
      method,
      target: '/api/ai/agents',
      headers: { authorization: `Bearer ${owner.token!}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: Buffer.from(body) }),
    });
  const listed = (JSON.parse((await request('GET')).text) as { agents?: { id: string }[] }).agents?.[0]?.id;
  if (listed) return listed;
  return (
    (JSON.parse((await request('POST', JSON.stringify({ name: 'Hostile documents' }))).text) as { id?: string }).id ?? AGENTS.research.id
  );
}
