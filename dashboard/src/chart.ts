/**
 * uPlot charts of the page. uPlot draws on canvas, is ~50 KB minified with no dependencies and
 * handles thousands of points (90 days by hour is 2,160 buckets per series) without effort.
 */
import uPlot from 'uplot';
import { colorAt, withAlpha } from './colors.ts';
import { formatDateTime } from './format.ts';

const HEIGHT = 260;

/** A chart that follows its container's width; `destroy` stops both. */
export type MountedChart = { plot: uPlot; destroy(): void };

function mount(container: HTMLElement, options: Omit<uPlot.Options, 'width' | 'height'>, data: uPlot.AlignedData): MountedChart {
  const width = () => Math.max(container.clientWidth, 240);
  const plot = new uPlot({ ...options, width: width(), height: HEIGHT }, data, container);
  const observer = new ResizeObserver(() => {
    if (plot.width !== width()) plot.setSize({ width: width(), height: HEIGHT });
  });
  observer.observe(container);
  return {
    plot,
    destroy() {
      observer.disconnect();
      plot.destroy();
    },
  };
}

const timeAxis = (timeZone: string): Pick<uPlot.Options, 'tzDate' | 'scales'> => ({
  tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), timeZone),
  scales: { x: { time: true } },
});

export type StackedSeries = { label: string; values: number[] };

/**
 * Stacked step areas, one band per series (the uPlot stacking recipe): series i is drawn at the
 * running sum of series 0..i, and the legend shows each series' own value.
 */
export function stackedChart(
  container: HTMLElement,
  input: { times: Date[]; series: StackedSeries[]; timeZone: string; format: (value: number) => string },
): MountedChart {
  const xs = input.times.map((time) => time.getTime() / 1000);
  const running = new Array<number>(xs.length).fill(0);
  const stacked = input.series.map((entry) => entry.values.map((value, index) => (running[index] = (running[index] ?? 0) + value)));
  const stepped = uPlot.paths.stepped?.({ align: 1 });
  const series: uPlot.Series[] = [
    { label: 'Time', value: (_plot, seconds) => (seconds == null ? '' : formatDateTime(new Date(seconds * 1000), input.timeZone)) },
    ...input.series.map((entry, index): uPlot.Series => ({
      label: entry.label,
      stroke: colorAt(index),
      fill: withAlpha(colorAt(index), 0.75),
      // No outline: where upper series are 0 their outlines would all lie on the top edge and hide the fills.
      width: 0,
      paths: stepped,
      points: { show: false },
      value: (_plot, _value, _seriesIndex, dataIndex) =>
        dataIndex == null ? '' : input.format(input.series[index]?.values[dataIndex] ?? 0),
    })),
  ];
  const bands: uPlot.Band[] = input.series.slice(1).map((_entry, index) => ({
    series: [index + 2, index + 1],
    fill: withAlpha(colorAt(index + 1), 0.75),
  }));
  return mount(
    container,
    {
      ...timeAxis(input.timeZone),
      series,
      bands,
      axes: [{}, { size: 72, values: (_plot, splits) => splits.map((value) => input.format(value)) }],
      legend: { live: true },
    },
    [xs, ...stacked],
  );
}

/**
 * Cumulative cost of the window, then a fan from the window's end to the month's end: the
 * projected total and the 80% prediction interval as a band. Points without a value are null.
 */
export function projectionChart(
  container: HTMLElement,
  input: {
    times: Date[];
    cumulative: (number | null)[];
    projected: (number | null)[];
    lower: (number | null)[];
    upper: (number | null)[];
    /** The monthly budget, drawn as a horizontal line; null without one. */
    budget: number | null;
    timeZone: string;
    format: (value: number) => string;
  },
): MountedChart {
  const xs = input.times.map((time) => time.getTime() / 1000);
  const show = (_plot: uPlot, value: number | null) => (value == null ? '–' : input.format(value));
  const budget = input.budget;
  const budgetSeries: uPlot.Series[] =
    budget === null ? [] : [{ label: 'Monthly budget', stroke: '#c0392b', width: 2, dash: [2, 3], points: { show: false }, value: show }];
  return mount(
    container,
    {
      ...timeAxis(input.timeZone),
      series: [
        { label: 'Time', value: (_plot, seconds) => (seconds == null ? '' : formatDateTime(new Date(seconds * 1000), input.timeZone)) },
        { label: 'Actual (cumulative)', stroke: colorAt(0), width: 2, points: { show: false }, value: show },
        { label: 'Projected', stroke: colorAt(5), width: 2, dash: [6, 4], spanGaps: true, points: { show: true, size: 6 }, value: show },
        { label: '80% low', stroke: withAlpha(colorAt(5), 0.6), width: 1, spanGaps: true, points: { show: false }, value: show },
        { label: '80% high', stroke: withAlpha(colorAt(5), 0.6), width: 1, spanGaps: true, points: { show: false }, value: show },
        ...budgetSeries,
      ],
      bands: [{ series: [4, 3], fill: withAlpha(colorAt(5), 0.18) }],
      axes: [{}, { size: 72, values: (_plot, splits) => splits.map((value) => input.format(value)) }],
      scales: { x: { time: true }, y: { range: (_plot, _min, max) => [0, max > 0 ? max * 1.05 : 1] } },
      legend: { live: true },
    },
    [xs, input.cumulative, input.projected, input.lower, input.upper, ...(budget === null ? [] : [xs.map(() => budget)])],
  );
}
