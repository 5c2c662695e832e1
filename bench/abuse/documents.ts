/**
 * The document rows of bench:abuse (issue 47): the review's hostile documents and their 1 MiB
 * variants, the 1 GiB-stream PDF alone and four at once (and the same bomb hidden from the stream
 * check, which the readers' memory bound stops), and a legitimate 5 MB PDF, each uploaded to the
 * service while `/api/health` is asked every 10 ms. Per row: statuses, answer times, health p99
 * and max, the service's RSS growth (sampled every 20 ms against its RSS after a collection just
 * before) and the highest RSS of its reader processes together.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { flateBombPdf, hostileDocuments, legitimatePdf, uploadBody, type DocumentUpload } from '../../fuzz/document-bombs.ts';
import { rssAfterGc, rssMbOf } from '../service-process.ts';

const REPEATS = Number(process.env.BENCH_ABUSE_DOCUMENT_REPEATS ?? 5);
const SAMPLE_MS = 20;
const HEALTH_EVERY_MS = 10;

export type DocumentRow = {
  name: string;
  bytes: number;
  uploads: number;
  statuses: string;
  answerMedianMs: number;
  answerMaxMs: number;
  healthChecks: number;
  healthP99Ms: number;
  healthMaxMs: number;
  rssGrowthMb: number;
  readersPeakMb: number;
};

const quantile = (values: number[], q: number) =>
  values.toSorted((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))] ?? 0;

/** The resident memory of the service's child processes together (its document readers), in MB. */
function childrenRssMb(pid: number): number {
  let pids: string[];
  try {
    pids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    return 0;
  }
  return pids.reduce((sum, child) => {
    try {
      return sum + rssMbOf(Number(child));
    } catch {
      return sum;
    }
  }, 0);
}

/** The service under test, a token of the demo owner and the agent the documents go to. */
export type Service = { base: string; child: ChildProcess; token: string; agentId: string };

async function upload(service: Service, document: DocumentUpload) {
  const { contentType, body } = uploadBody(document);
  const started = performance.now();
  const response = await fetch(`${service.base}/api/ai/agents/${service.agentId}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.token}`, 'content-type': contentType },
    body,
  });
  const answer = (await response.json()) as { message?: { en?: string } };
  return { status: response.status, ms: performance.now() - started, message: answer.message?.en };
}

/** `rounds` rounds of `parallel` uploads of `document` at once, health polled and memory sampled throughout. */
async function row(
  service: Service,
  name: string,
  document: DocumentUpload,
  options: { rounds: number; parallel?: number },
): Promise<DocumentRow & { messages: string[] }> {
  const pid = service.child.pid!;
  const rssBefore = await rssAfterGc(service.child);
  let rssPeak = rssBefore;
  let readersPeak = 0;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssMbOf(pid));
    readersPeak = Math.max(readersPeak, childrenRssMb(pid));
  }, SAMPLE_MS);
  const health: number[] = [];
  let done = false;
  const polling = (async () => {
    while (!done) {
      const started = performance.now();
      await (await fetch(`${service.base}/api/health`)).arrayBuffer();
      const took = performance.now() - started;
      health.push(took);
      // One check every HEALTH_EVERY_MS (back to back, the checks alone would take a core from the readers).
      if (took < HEALTH_EVERY_MS) await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS - took));
    }
  })();
  const answers: Array<{ status: number; ms: number; message?: string }> = [];
  try {
    for (let round = 0; round < options.rounds; round++) {
      answers.push(...(await Promise.all(Array.from({ length: options.parallel ?? 1 }, () => upload(service, document)))));
    }
  } finally {
    done = true;
    await polling;
    clearInterval(sampler);
  }
  const statuses = new Map<number, number>();
  for (const answer of answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  return {
    name,
    bytes: document.body.length,
    uploads: answers.length,
    statuses: [...statuses].map(([status, count]) => `${status}x${count}`).join(' '),
    answerMedianMs: quantile(
      answers.map((answer) => answer.ms),
      0.5,
    ),
    answerMaxMs: Math.max(...answers.map((answer) => answer.ms)),
    healthChecks: health.length,
    healthP99Ms: quantile(health, 0.99),
    healthMaxMs: Math.max(0, ...health),
    rssGrowthMb: rssPeak - rssBefore,
    readersPeakMb: readersPeak,
    messages: [...new Set(answers.map((answer) => answer.message).filter((message): message is string => message !== undefined))],
  };
}

/** Every document row. */
export async function documentRows(service: Service, log: (line: string) => void): Promise<Array<DocumentRow & { messages: string[] }>> {
  const rows: Array<DocumentRow & { messages: string[] }> = [];
  const measure = async (name: string, document: DocumentUpload, options: { rounds: number; parallel?: number }) => {
    log(`measuring ${name}`);
    rows.push(await row(service, name, document, options));
  };
  for (const document of hostileDocuments()) await measure(document.label, document, { rounds: REPEATS });
  const pdf = (name: string, body: Buffer): DocumentUpload => ({ label: name, name: `${name}.pdf`, type: 'application/pdf', body });
  const bomb = pdf('bomb', flateBombPdf());
  await measure('PDF, one page of 1 GiB of zeros under FlateDecode', bomb, { rounds: REPEATS });
  await measure('the same PDF, four at once', bomb, { rounds: 1, parallel: 4 });
  const hidden = pdf('hidden', flateBombPdf(1024 * 1024 * 1024, { hidden: true }));
  await measure('1 GiB bomb behind ASCIIHexDecode (memory bound)', hidden, { rounds: 1 });
  await measure('the same, four at once', hidden, { rounds: 1, parallel: 4 });
  await measure('legitimate 5 MB PDF (200 pages, images)', pdf('handbook', legitimatePdf(5 * 1024 * 1024)), { rounds: 2 });
  return rows;
}

/** The rows as a Markdown table, with the messages of the refusals below it. */
export function documentTable(rows: Array<DocumentRow & { messages: string[] }>): string[] {
  return [
    '| upload | bytes | answers | median / max answer ms | health checks | health p99 / max ms | service RSS growth MB | readers peak RSS MB |',
    '|---|---:|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.name} | ${row.bytes} | ${row.statuses} | ${row.answerMedianMs.toFixed(0)} / ${row.answerMaxMs.toFixed(0)} | ` +
        `${row.healthChecks} | ${row.healthP99Ms.toFixed(1)} / ${row.healthMaxMs.toFixed(1)} | ${row.rssGrowthMb.toFixed(0)} | ${row.readersPeakMb.toFixed(0)} |`,
    ),
    '',
    ...[...new Set(rows.flatMap((row) => row.messages))].map((message) => `- ${message}`),
  ];
}
