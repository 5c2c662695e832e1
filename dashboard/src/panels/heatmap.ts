/**
 * Day-by-hour heatmap as an HTML table (readable by screen readers, no canvas): rows are local
 * days Monday first, columns local hours. Absent cells are zero (the API lists only non-zero ones).
 * Every cell carries its numbers in data attributes and its label in a title and hidden text.
 */
import { el, formatInteger, formatUsd } from '../format.ts';
import type { Panel } from '../panel.ts';
import type { Heatmap } from '../types.ts';

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
/** API day numbers (0 = Sunday) in display order. */
const DAY_ORDER = [1, 2, 3, 4, 5, 6, 0];

const hourLabel = (hour: number) => `${String(hour).padStart(2, '0')}:00`;

export function renderHeatmap(panel: Panel, answer: Heatmap): void {
  if (answer.cells.length === 0) {
    panel.empty('No usage in this window.');
    return;
  }
  const byPosition = new Map(answer.cells.map((cell) => [cell.dayOfWeek * 24 + cell.hour, cell]));
  const max = Math.max(...answer.cells.map((cell) => cell.totalTokens), 1);
  const head = el(
    'tr',
    {},
    el('th', { scope: 'col' }, el('span', { class: 'sr-only' }, 'Day')),
    ...Array.from({ length: 24 }, (_unused, hour) => el('th', { scope: 'col', title: hourLabel(hour) }, String(hour))),
  );
  const rows = DAY_ORDER.map((day) => {
    const name = DAY_NAMES[day] ?? String(day);
    const cells = Array.from({ length: 24 }, (_unused, hour) => {
      const cell = byPosition.get(day * 24 + hour);
      const tokens = cell?.totalTokens ?? 0;
      const cost = cell?.totalCostUsd ?? 0;
      const label = `${name} ${hourLabel(hour)}: ${formatInteger(tokens)} tokens, ${formatUsd(cost)}`;
      const level = tokens === 0 ? 0 : Math.max(0.08, tokens / max);
      return el(
        'td',
        {
          class: 'cell',
          title: label,
          style: `--level: ${level.toFixed(3)}`,
          'data-day': String(day),
          'data-hour': String(hour),
          'data-tokens': String(tokens),
          'data-cost': String(cost),
        },
        el('span', { class: 'sr-only' }, label),
      );
    });
    return el('tr', {}, el('th', { scope: 'row' }, name.slice(0, 3)), ...cells);
  });
  const table = el(
    'table',
    { class: 'heatmap', 'data-timezone': answer.timezone },
    el('caption', {}, `Tokens by local day and hour in ${answer.timezone}; darker is more.`),
    el('thead', {}, head),
    el('tbody', {}, ...rows),
  );
  panel.ready([el('div', { class: 'scroll' }, table)]);
}
