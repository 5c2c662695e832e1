/** One line of the soak's table: what the minute answered and where memory stood at its end. */
export type MinuteRow = {
  minute: number;
  requests: number;
  /** Answers other than 200 so far (429 with `--limits`; anything else is a failure). */
  non200: number;
  entries: number;
  cacheMb: number;
  /** Evictions so far. */
  evictions: number;
  /** RSS at the end of the minute. */
  rssMb: number;
  /** Highest RSS read during the minute (one reading a second). */
  rssMaxMb: number;
  heapMb: number;
  /** Memory of Buffers (where cached answers live), outside the JS heap. */
  buffersMb: number;
  /** Heap used and RSS right after a full garbage collection at the end of the minute. */
  heapAfterGcMb: number;
  rssAfterGcMb: number;
};

const COLUMNS: [keyof MinuteRow, string][] = [
  ['minute', 'minute'],
  ['requests', 'requests'],
  ['non200', 'non-200 (total)'],
  ['entries', 'cache entries'],
  ['cacheMb', 'cache MB'],
  ['evictions', 'evictions (total)'],
  ['rssMb', 'RSS MB'],
  ['rssMaxMb', 'RSS max MB'],
  ['heapMb', 'heap used MB'],
  ['buffersMb', 'buffers MB'],
  ['heapAfterGcMb', 'heap after GC MB'],
  ['rssAfterGcMb', 'RSS after GC MB'],
];

/** A Markdown table of `rows` (with its header when `header`). */
export function formatTable(rows: MinuteRow[], header: boolean): string {
  const lines = rows.map((row) => `| ${COLUMNS.map(([key]) => row[key]).join(' | ')} |`);
  if (!header) return lines.join('\n');
  return [`| ${COLUMNS.map(([, title]) => title).join(' | ')} |`, `|${COLUMNS.map(() => '---').join('|')}|`, ...lines].join('\n');
}
