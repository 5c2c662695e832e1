/**
 * Two versions of an agent side by side (docs/evaluations.md, "Versions"): a row per field of
 * the definition (name, description, instructions, model settings, guardrails, tool
 * permissions), the older version's value beside the newer's, a changed row marked in words as
 * well as in colour. The instructions are compared line by line: a line only in the older
 * version is struck (`del`), one only in the newer is marked (`ins`).
 */
import type { ApiResponse } from '../api-types.generated.ts';
import { el } from '../format.ts';

export type Version = ApiResponse<'GET /ai/agents/:agentId/versions'>['versions'][number];
type Definition = Version['definition'];

const PERMISSIONS: Record<string, string> = { always_allow: 'always allowed', needs_approval: 'needs approval', blocked: 'blocked' };
const orNone = (value: string | number | null, none: string) => (value === null || value === '' ? none : String(value));

/** The fields compared, each as text (equal texts: an unchanged field). */
const FIELDS: [label: string, text: (definition: Definition) => string][] = [
  ['Name', (d) => d.name],
  ['Description', (d) => orNone(d.description, '(none)')],
  ['Instructions', (d) => d.instructions],
  ['Model', (d) => orNone(d.modelId, "The platform's default model")],
  ['Temperature', (d) => orNone(d.temperature, "The provider's default")],
  ['Output limit (tokens)', (d) => orNone(d.maxOutputTokens, "The provider's default")],
  ['Blocked terms', (d) => (d.guardrails.blockedTerms.length === 0 ? '(none)' : d.guardrails.blockedTerms.join('\n'))],
  ['Moderation model', (d) => orNone(d.guardrails.moderationModel, 'None')],
  ['Refusal', (d) => d.guardrails.refusal],
  [
    'Tool permissions',
    (d) =>
      d.tools.length === 0
        ? '(no tools)'
        : d.tools
            .map((tool) => `${tool.toolName} (${tool.providerKey}): ${PERMISSIONS[tool.permissionStatus] ?? tool.permissionStatus}`)
            .join('\n'),
  ],
];

/** For each line of `a` and of `b`, whether it is in their longest common subsequence (kept). */
function keptLines(a: string[], b: string[]): [boolean[], boolean[]] {
  // lengths[i][j]: the LCS length of a[i..] and b[j..]; instructions are at most 32,000 characters.
  const lengths = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  const keptA = a.map(() => false);
  const keptB = b.map(() => false);
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      keptA[i++] = true;
      keptB[j++] = true;
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) i++;
    else j++;
  }
  return [keptA, keptB];
}

/** `lines` as a block, the lines not kept wrapped in `mark` (del or ins) and said in words to screen readers. */
function markedLines(lines: string[], kept: boolean[], mark: 'del' | 'ins'): HTMLElement {
  const block = el('div', { class: 'diff-text' });
  lines.forEach((line, index) => {
    const text = line === '' ? '\u00a0' : line;
    block.append(
      kept[index]
        ? el('span', { class: 'line' }, text)
        : el(mark, { class: 'line' }, el('span', { class: 'sr-only' }, mark === 'del' ? 'Removed: ' : 'Added: '), text),
    );
  });
  return block;
}

/** The fields of several lines, compared line by line; the others are shown whole. */
const BY_LINE = new Set(['Instructions', 'Blocked terms', 'Tool permissions']);

function cells(label: string, from: string, to: string): [HTMLElement, HTMLElement] {
  if (from === to || !BY_LINE.has(label)) return [el('div', { class: 'diff-text' }, from), el('div', { class: 'diff-text' }, to)];
  const a = from.split('\n');
  const b = to.split('\n');
  const [keptA, keptB] = keptLines(a, b);
  return [markedLines(a, keptA, 'del'), markedLines(b, keptB, 'ins')];
}

/** The diff table of `from` (older) and `to` (newer), and the names of the fields that differ. */
export function versionDiff(from: Version, to: Version): { table: HTMLElement; changed: string[] } {
  const changed: string[] = [];
  const rows = FIELDS.map(([label, text]) => {
    const a = text(from.definition);
    const b = text(to.definition);
    const differs = a !== b;
    if (differs) changed.push(label);
    const [left, right] = cells(label, a, b);
    return el(
      'tr',
      { 'data-field': label, 'data-changed': String(differs) },
      el('th', { scope: 'row' }, label, differs ? el('span', { class: 'changed' }, 'changed') : ''),
      el('td', {}, left),
      el('td', {}, right),
    );
  });
  const table = el(
    'table',
    { class: 'plain-table diff', id: 'version-diff' },
    el('caption', { class: 'sr-only' }, `Version ${from.version} beside version ${to.version}`),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', { scope: 'col' }, 'Field'),
        el('th', { scope: 'col' }, `Version ${from.version}`),
        el('th', { scope: 'col' }, `Version ${to.version}`),
      ),
    ),
    el('tbody', {}, ...rows),
  );
  return { table, changed };
}
