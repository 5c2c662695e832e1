import anyTest from 'ava';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser.ts';
import { signIn, waitForReports, withDashboard } from '../helpers/dashboard.ts';

const test = withDashboard(anyTest);

type Cell = { dayOfWeek: number; hour: number; totalTokens: number; totalCostUsd: number };

/** Share of a canvas's pixels that are clearly coloured (series fills), not white, grey or black (axes, grid, text). */
async function colouredShare(page: Page, selector: string): Promise<number> {
  return page
    .locator(`${selector} canvas`)
    .first()
    .evaluate((node) => {
      const canvas = node as unknown as {
        width: number;
        height: number;
        getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
      };
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let coloured = 0;
      for (let i = 0; i < data.length; i += 4) {
        const [r = 0, g = 0, b = 0, a = 0] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
        if (a > 0 && Math.max(r, g, b) - Math.min(r, g, b) > 40) coloured++;
      }
      return coloured / (data.length / 4);
    });
}

test.serial('the owner signs in, switches to Asia/Kathmandu by the hour, and every panel shows the API’s numbers', async (t) => {
  const { page, requested } = await t.context.open();
  await signIn(page, t.context.origin, 'owner@demo.test');
  await waitForReports(page);
  t.is(await page.getByLabel('Time zone').inputValue(), 'America/New_York', 'the browser’s zone is the default');

  await page.getByLabel('Time zone').selectOption('Asia/Kathmandu');
  await waitForReports(page, { timezone: 'Asia/Kathmandu' });
  await page.getByLabel('Granularity').selectOption('hour');
  await waitForReports(page, { timezone: 'Asia/Kathmandu', granularity: 'hour' });
  await screenshot(page, 'owner-1280');

  const root = page.locator('#dashboard');
  const window = {
    from: (await root.getAttribute('data-from')) ?? '',
    to: (await root.getAttribute('data-to')) ?? '',
    source: (await root.getAttribute('data-source')) ?? '',
  };
  t.is(new Date(window.to).getTime() - new Date(window.from).getTime(), 30 * 86_400_000, 'the default window is the last 30 days');
  const token = await t.context.t.login('owner@demo.test');
  const api = async <T>(path: string, query: Record<string, string>) => {
    const response = await t.context.t
      .http()
      .get(`/api/ai/org-usage/${path}`)
      .query(query)
      .set('authorization', `Bearer ${token}`)
      .expect(200);
    return response.body as T;
  };

  // Time series: one bucket per hour of the window, the same totals, stacked by model.
  const series = await api<{ buckets: { totalTokens: number; totalCostUsd: number; series: Record<string, unknown> }[] }>('time-series', {
    ...window,
    timezone: 'Asia/Kathmandu',
    granularity: 'hour',
    groupBy: 'model',
  });
  t.is(series.buckets.length, 720);
  for (const [panel, field] of [
    ['#panel-cost', 'totalCostUsd'],
    ['#panel-tokens', 'totalTokens'],
  ] as const) {
    const chart = page.locator(`${panel} .chart`);
    t.is(await page.locator(panel).getAttribute('data-state'), 'ready');
    t.is(await chart.getAttribute('data-buckets'), '720');
    t.is(await chart.getAttribute('data-granularity'), 'hour');
    t.deepEqual((await chart.getAttribute('data-series'))?.split('|').sort(), Object.keys(series.buckets[0]?.series ?? {}).sort());
    const expected = series.buckets.reduce((sum, bucket) => sum + bucket[field], 0);
    t.true(Math.abs(Number(await chart.getAttribute('data-total')) - expected) < 1e-6);
    t.true((await colouredShare(page, panel)) > 0.01, `${panel} draws its series`);
  }

  // Heatmap: all 168 cells, absent ones zero, equal to the API's answer for the same query.
  const heatmap = await api<{ cells: Cell[] }>('heatmap', { ...window, timezone: 'Asia/Kathmandu' });
  const shown = await page.locator('#panel-heatmap td.cell').evaluateAll((cells) =>
    cells.map((cell) => {
      const data = (cell as unknown as { dataset: Record<string, string> }).dataset;
      return { dayOfWeek: Number(data.day), hour: Number(data.hour), totalTokens: Number(data.tokens), totalCostUsd: Number(data.cost) };
    }),
  );
  t.is(shown.length, 168);
  const byPosition = new Map(heatmap.cells.map((cell) => [`${cell.dayOfWeek}:${cell.hour}`, cell]));
  t.true(heatmap.cells.length > 100, 'demo usage fills most of the week');
  for (const cell of shown) {
    const answer = byPosition.get(`${cell.dayOfWeek}:${cell.hour}`);
    t.deepEqual(cell, answer ?? { dayOfWeek: cell.dayOfWeek, hour: cell.hour, totalTokens: 0, totalCostUsd: 0 });
  }

  // Projection: the band is the API's 80% interval.
  const projection = await api<{ status: string; actual: number; projected: number; lowerBound: number; upperBound: number }>(
    'projection',
    window,
  );
  t.is(projection.status, 'ok');
  const facts = page.locator('#panel-projection dl');
  t.deepEqual(
    {
      status: await facts.getAttribute('data-status'),
      actual: Number(await facts.getAttribute('data-actual')),
      projected: Number(await facts.getAttribute('data-projected')),
      lowerBound: Number(await facts.getAttribute('data-lower')),
      upperBound: Number(await facts.getAttribute('data-upper')),
    },
    {
      status: 'ok',
      actual: projection.actual,
      projected: projection.projected,
      lowerBound: projection.lowerBound,
      upperBound: projection.upperBound,
    },
  );
  t.true((await colouredShare(page, '#panel-projection')) > 0.005, 'the projection chart draws the cumulative cost and the band');

  // Model efficiency: the API's models in its order; unknown latencies read "no data".
  const models = await api<{ modelId: string; avgLatencyMs: number | null; totalTokens: number }[]>('model-efficiency', {
    ...window,
    limit: '50',
  });
  const rows = page.locator('#panel-models tbody tr');
  t.deepEqual(
    await rows.evaluateAll((list) => list.map((row) => row.getAttribute('data-model'))),
    models.map((model) => model.modelId),
  );
  for (const model of models.filter((entry) => entry.avgLatencyMs === null)) {
    t.is(await page.locator(`#panel-models tr[data-model="${model.modelId}"] [data-key="avgLatencyMs"]`).textContent(), 'no data');
  }
  // Sorting from the keyboard: Tab to the "Tokens" header button and press Enter.
  await page.getByRole('button', { name: 'Tokens' }).focus();
  await page.keyboard.press('Enter');
  const byTokens = [...models].sort((a, b) => b.totalTokens - a.totalTokens).map((model) => model.modelId);
  t.deepEqual(await rows.evaluateAll((list) => list.map((row) => row.getAttribute('data-model'))), byTokens);
  t.is(await page.locator('#panel-models th[aria-sort="descending"]').textContent(), 'Tokens ▼');

  // Cache savings, with the unpriced model explained.
  const cache = await api<{ estimatedSavingsUsd: number; hitRate: number; skippedModelsCount: number }>('cache-savings', window);
  const savings = page.locator('#panel-cache dl');
  t.is(Number(await savings.getAttribute('data-savings')), cache.estimatedSavingsUsd);
  t.is(Number(await savings.getAttribute('data-hit-rate')), cache.hitRate);
  t.is(Number(await savings.getAttribute('data-skipped')), cache.skippedModelsCount);
  t.true(cache.skippedModelsCount > 0, 'the demo data has an unpriced model');
  t.regex((await page.locator('#panel-cache [data-skipped-note]').textContent()) ?? '', /has no price.*partial/);

  // Nothing came from another origin.
  t.deepEqual(
    requested.filter((url) => !url.startsWith(`${t.context.origin}/`)),
    [],
  );

  // Readable on a phone: nothing wider than the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  t.true(
    await page.evaluate(
      () =>
        (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth <= 390,
    ),
  );
  await screenshot(page, 'owner-phone');
  await page.context().close();
});
