/** Month-end projection: cumulative actual cost, the projected total and its 80% interval. */
import { projectionChart } from '../chart.ts';
import { el, formatDateTime, formatUsd } from '../format.ts';
import type { Panel } from '../panel.ts';
import type { Budget, Projection, TimeSeries } from '../types.ts';
import { projectionEnd, type ReportWindow } from '../window.ts';

function facts(rows: [string, string][], attributes: Record<string, string>): HTMLElement {
  return el('dl', { class: 'facts', ...attributes }, ...rows.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]));
}

const STATUS_TEXT: Record<Budget['status'], string> = { ok: 'on track', at_risk: 'at risk', exceeded: 'exceeded' };

/** The budget's line of the panel: limit, this month's spend and projection, and the status. */
function budgetLine(budget: Budget): HTMLElement {
  const projected = budget.projectedUsd === null ? '' : `, projected ${formatUsd(budget.projectedUsd)}`;
  return el(
    'p',
    {
      class: `budget budget-${budget.status}`,
      'data-budget-status': budget.status,
      'data-budget-limit': String(budget.monthlyLimitUsd),
    },
    `Budget ${formatUsd(budget.monthlyLimitUsd)} a month: ${STATUS_TEXT[budget.status]}. Spent ${formatUsd(budget.spentUsd)} in ${budget.month} (UTC)${projected}.`,
  );
}

export function renderProjection(
  panel: Panel,
  answer: Projection,
  series: TimeSeries,
  window: ReportWindow,
  budget: Budget | undefined,
): void {
  const timeZone = series.timezone;
  // The cumulative line: 0 at the window's start, then the running total at the end of each bucket.
  const times = [window.from];
  const cumulative: (number | null)[] = [0];
  let running = 0;
  series.buckets.forEach((bucket, index) => {
    running += bucket.totalCostUsd;
    const next = series.buckets[index + 1];
    times.push(next ? new Date(next.bucket) : window.to);
    cumulative.push(running);
  });
  const projected: (number | null)[] = cumulative.map(() => null);
  const lower = [...projected];
  const upper = [...projected];
  const monthEnd = projectionEnd(window);
  const content: (Node | string)[] = budget ? [budgetLine(budget)] : [];

  if (answer.status === 'insufficient_data') {
    content.push(
      el(
        'p',
        { class: 'insufficient', 'data-status': answer.status, 'data-days-available': String(answer.daysAvailable) },
        `Not enough data to project: the projection needs at least ${answer.minDaysRequired} days with usage in the window, and this window has ${answer.daysAvailable}.`,
      ),
    );
  } else {
    const last = cumulative.length - 1;
    projected[last] = lower[last] = upper[last] = answer.actual;
    if (monthEnd.getTime() > window.to.getTime()) {
      times.push(monthEnd);
      cumulative.push(null);
      projected.push(answer.projected);
      lower.push(answer.lowerBound);
      upper.push(answer.upperBound);
    }
    content.push(
      facts(
        [
          ['Actual, this window', formatUsd(answer.actual)],
          [`Projected total at ${formatDateTime(monthEnd, 'UTC')} UTC`, formatUsd(answer.projected)],
          [`${answer.confidencePct}% interval`, `${formatUsd(answer.lowerBound)} – ${formatUsd(answer.upperBound)}`],
        ],
        {
          'data-status': answer.status,
          'data-actual': String(answer.actual),
          'data-projected': String(answer.projected),
          'data-lower': String(answer.lowerBound),
          'data-upper': String(answer.upperBound),
        },
      ),
      el(
        'p',
        { class: 'note' },
        'The projection fits a straight line to the daily (UTC) cost of the window and adds its predictions for the rest of the month. Choose "Month to date" for the month’s own total.',
      ),
    );
  }
  if (answer.status === 'insufficient_data' && answer.daysAvailable === 0) {
    panel.empty('No usage in this window, so nothing to project.');
    return;
  }
  const chart = el('div', {
    class: 'chart',
    role: 'img',
    'aria-label':
      answer.status === 'ok'
        ? `Cumulative cost reaching ${formatUsd(answer.actual)}, projected ${formatUsd(answer.projected)} (80% interval ${formatUsd(answer.lowerBound)} to ${formatUsd(answer.upperBound)})`
        : `Cumulative cost reaching ${formatUsd(running)}; no projection`,
    'data-points': String(times.length),
  });
  panel.ready([chart, ...content], () => {
    const mounted = projectionChart(chart, {
      times,
      cumulative,
      projected,
      lower,
      upper,
      budget: budget?.monthlyLimitUsd ?? null,
      timeZone,
      format: formatUsd,
    });
    return () => mounted.destroy();
  });
}
