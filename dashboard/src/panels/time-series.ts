/** Cost and tokens over time, stacked by model or action when the answer has `series`. */
import { stackedChart, type StackedSeries } from '../chart.ts';
import { el, formatCompact, formatDateTime, formatInteger, formatUsd } from '../format.ts';
import type { Panel } from '../panel.ts';
import type { TimeSeries, Totals } from '../types.ts';

export type Metric = 'cost' | 'tokens';

const pick = (totals: Totals | undefined, metric: Metric) => (totals ? (metric === 'cost' ? totals.totalCostUsd : totals.totalTokens) : 0);

/**
 * Series keys by cost, largest first, so the biggest spender sits at the bottom of the stack and
 * a key has the same colour in the cost and the token chart.
 */
function seriesOf(answer: TimeSeries, metric: Metric): StackedSeries[] {
  const first = answer.buckets[0];
  if (!first?.series) return [{ label: 'Total', values: answer.buckets.map((bucket) => pick(bucket, metric)) }];
  const keys = Object.keys(first.series);
  const sums = new Map(keys.map((key) => [key, answer.buckets.reduce((sum, bucket) => sum + pick(bucket.series?.[key], 'cost'), 0)]));
  keys.sort((a, b) => (sums.get(b) ?? 0) - (sums.get(a) ?? 0) || (a < b ? -1 : 1));
  return keys.map((key) => ({ label: key, values: answer.buckets.map((bucket) => pick(bucket.series?.[key], metric)) }));
}

/** The same numbers as a table, built when the reader opens it (a 90-day hourly window has 2,160 rows). */
function dataTable(answer: TimeSeries, series: StackedSeries[], metric: Metric): HTMLElement {
  const details = el('details', { class: 'data-table' }, el('summary', {}, 'Show the numbers'));
  details.addEventListener('toggle', () => {
    if (!details.open || details.querySelector('table')) return;
    const format = metric === 'cost' ? formatUsd : formatInteger;
    const head = el(
      'tr',
      {},
      el('th', { scope: 'col' }, 'Bucket start'),
      ...series.map((entry) => el('th', { scope: 'col' }, entry.label)),
    );
    const rows = answer.buckets.map((bucket, index) =>
      el(
        'tr',
        {},
        el('th', { scope: 'row' }, formatDateTime(new Date(bucket.bucket), answer.timezone)),
        ...series.map((entry) => el('td', {}, format(entry.values[index] ?? 0))),
      ),
    );
    details.append(el('div', { class: 'scroll' }, el('table', {}, el('thead', {}, head), el('tbody', {}, ...rows))));
  });
  return details;
}

export function renderTimeSeries(panel: Panel, answer: TimeSeries, metric: Metric): void {
  const total = answer.buckets.reduce((sum, bucket) => sum + pick(bucket, metric), 0);
  if (answer.buckets.every((bucket) => bucket.totalTokens === 0 && bucket.totalCostUsd === 0)) {
    panel.empty('No usage in this window.');
    return;
  }
  const series = seriesOf(answer, metric);
  const format = metric === 'cost' ? formatUsd : formatCompact;
  const chart = el('div', {
    class: 'chart',
    role: 'img',
    'aria-label': `${metric === 'cost' ? 'Cost' : 'Tokens'} per ${answer.granularity}, ${answer.buckets.length} buckets, total ${
      metric === 'cost' ? formatUsd(total) : formatInteger(total)
    }, stacked by ${series.map((entry) => entry.label).join(', ')}`,
    'data-buckets': String(answer.buckets.length),
    'data-series': series.map((entry) => entry.label).join('|'),
    'data-total': String(total),
    'data-granularity': answer.granularity,
  });
  const summary = el(
    'p',
    { class: 'panel-summary' },
    `Total ${metric === 'cost' ? formatUsd(total) : `${formatInteger(total)} tokens`} · ${answer.buckets.length} ${answer.granularity} buckets in ${answer.timezone}`,
  );
  const times = answer.buckets.map((bucket) => new Date(bucket.bucket));
  panel.ready([summary, chart, dataTable(answer, series, metric)], () => {
    const mounted = stackedChart(chart, { times, series, timeZone: answer.timezone, format });
    return () => mounted.destroy();
  });
}
