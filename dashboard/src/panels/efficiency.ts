/** The model-efficiency table, sortable by any column; unknown latencies read "no data", never 0. */
import { el, formatInteger, formatMs, formatUsd } from '../format.ts';
import type { Panel } from '../panel.ts';
import type { ModelEfficiency } from '../types.ts';

type Row = ModelEfficiency[number];
type Column = { key: keyof Row; label: string; numeric: boolean; format: (row: Row) => string };

const COLUMNS: Column[] = [
  { key: 'modelId', label: 'Model', numeric: false, format: (row) => row.modelId },
  { key: 'totalCostUsd', label: 'Cost', numeric: true, format: (row) => formatUsd(row.totalCostUsd) },
  { key: 'totalTokens', label: 'Tokens', numeric: true, format: (row) => formatInteger(row.totalTokens) },
  { key: 'executionsCount', label: 'Executions', numeric: true, format: (row) => formatInteger(row.executionsCount) },
  { key: 'avgLatencyMs', label: 'Average latency', numeric: true, format: (row) => formatMs(row.avgLatencyMs) },
  { key: 'p95LatencyMs', label: 'p95 latency', numeric: true, format: (row) => formatMs(row.p95LatencyMs) },
];

type Sort = { key: keyof Row; direction: 'ascending' | 'descending' };

/** Nulls ("no data") sort last in both directions; ties keep the API's order. */
function sorted(rows: ModelEfficiency, sort: Sort): ModelEfficiency {
  const sign = sort.direction === 'ascending' ? 1 : -1;
  return rows
    .map((row, index) => ({ row, index }))
    .sort((a, b) => {
      const x = a.row[sort.key];
      const y = b.row[sort.key];
      if (x === null || y === null) return x === y ? a.index - b.index : x === null ? 1 : -1;
      const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0;
      return order * sign || a.index - b.index;
    })
    .map((entry) => entry.row);
}

/** `filtered`: the rows are of one action type (the settings' Action). */
export function renderEfficiency(panel: Panel, rows: ModelEfficiency, filtered = false): void {
  if (rows.length === 0) {
    panel.empty(filtered ? 'No usage of this action in this window.' : 'No usage in this window.');
    return;
  }
  let sort: Sort = { key: 'totalCostUsd', direction: 'descending' };
  const table = el('table', { class: 'models' }, el('caption', { class: 'sr-only' }, 'Model efficiency; column headers sort the table'));
  const draw = (focusKey?: keyof Row) => {
    const head = el(
      'tr',
      {},
      ...COLUMNS.map((column) => {
        const active = sort.key === column.key;
        const button = el(
          'button',
          { type: 'button', class: 'sort', 'data-sort': column.key },
          column.label,
          el('span', { 'aria-hidden': 'true' }, active ? (sort.direction === 'ascending' ? ' ▲' : ' ▼') : ''),
        );
        button.addEventListener('click', () => {
          sort = {
            key: column.key,
            direction:
              active && sort.direction === 'descending' ? 'ascending' : active ? 'descending' : column.numeric ? 'descending' : 'ascending',
          };
          draw(column.key);
        });
        return el('th', { scope: 'col', class: column.numeric ? 'num' : '', 'aria-sort': active ? sort.direction : 'none' }, button);
      }),
    );
    const body = sorted(rows, sort).map((row) =>
      el(
        'tr',
        { 'data-model': row.modelId },
        ...COLUMNS.map((column, index) =>
          el(
            index === 0 ? 'th' : 'td',
            {
              ...(index === 0 ? { scope: 'row' } : {}),
              class: `${column.numeric ? 'num' : ''}${row[column.key] === null ? ' no-data' : ''}`,
              'data-key': column.key,
            },
            column.format(row),
          ),
        ),
      ),
    );
    table.replaceChildren(table.caption ?? '', el('thead', {}, head), el('tbody', {}, ...body));
    if (focusKey) table.querySelector<HTMLButtonElement>(`button[data-sort="${focusKey}"]`)?.focus();
  };
  draw();
  panel.ready([el('div', { class: 'scroll' }, table)]);
}
