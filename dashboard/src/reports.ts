/**
 * Loads the six analytics answers for the current settings and hands each to its panel. A new
 * load aborts the previous one. 401 ends the session, 403 shows the no-access view, 429 keeps
 * what could be shown and says when to try again.
 */
import { ApiError } from './api.ts';
import { api } from './authed.ts';
import type { Controls, Settings } from './controls.ts';
import { el, formatDateTime } from './format.ts';
import { Panel } from './panel.ts';
import { renderCacheSavings } from './panels/cache-savings.ts';
import { renderEfficiency } from './panels/efficiency.ts';
import { renderEndUsers } from './panels/end-users.ts';
import { renderHeatmap } from './panels/heatmap.ts';
import { renderProjection } from './panels/projection.ts';
import { renderTimeSeries } from './panels/time-series.ts';
import { retryText } from './retry.ts';
import { session, SESSION_ENDED } from './session.ts';
import type { Budget, Budgets, CacheSavings, EndUsers, Heatmap, ModelEfficiency, Projection, TimeSeries } from './types.ts';
import { byId, show } from './views.ts';
import { reportWindow, type ReportWindow } from './window.ts';

/** The query of each endpoint; `from`, `to` and `source` are the same for all six; `action` filters the model efficiency only (the one endpoint taking it). */
function queriesOf(settings: Settings, window: ReportWindow) {
  const common = { from: window.from.toISOString(), to: window.to.toISOString(), source: settings.source };
  return {
    common,
    timeSeries: {
      ...common,
      timezone: settings.timeZone,
      groupBy: settings.groupBy,
      ...(settings.granularity === 'auto' ? {} : { granularity: settings.granularity }),
    },
    heatmap: { ...common, timezone: settings.timeZone },
    // 50 is the endpoint's maximum: every model of the window, for sorting in the page.
    models: { ...common, limit: '50', ...(settings.action ? { action: settings.action } : {}) },
    endUsers: { ...common, limit: '10' },
  };
}

const asApiError = (reason: unknown) => (reason instanceof ApiError ? reason : new ApiError(0, String(reason)));

export class Reports {
  readonly #root = byId('dashboard');
  readonly #status = byId('status');
  readonly #panels = {
    cost: new Panel('panel-cost'),
    tokens: new Panel('panel-tokens'),
    projection: new Panel('panel-projection'),
    cache: new Panel('panel-cache'),
    heatmap: new Panel('panel-heatmap'),
    models: new Panel('panel-models'),
    endUsers: new Panel('panel-end-users'),
  };
  readonly #controls: Controls;
  readonly #onSessionEnded: (message: string) => void;
  #controller: AbortController | undefined;

  constructor(controls: Controls, onSessionEnded: (message: string) => void) {
    this.#controls = controls;
    this.#onSessionEnded = onSessionEnded;
  }

  abort(): void {
    this.#controller?.abort();
  }

  async load(): Promise<void> {
    if (!session.email) return this.#onSessionEnded('');
    const settings = this.#controls.settings;
    const window = reportWindow(settings, new Date());
    if (typeof window === 'string') {
      this.#status.textContent = window;
      return;
    }
    this.abort();
    const current = new AbortController();
    this.#controller = current;
    const query = queriesOf(settings, window);
    // The query of this load, for people reading the DOM (and the browser tests).
    Object.assign(this.#root.dataset, {
      from: query.common.from,
      to: query.common.to,
      source: settings.source,
      timezone: settings.timeZone,
      granularity: settings.granularity,
      groupBy: settings.groupBy,
      action: settings.action,
      loaded: 'false',
      state: 'loading',
    });
    for (const panel of Object.values(this.#panels)) panel.loading();
    this.#status.textContent = 'Loading…';

    const get = <T>(path: string, params: Record<string, string>) =>
      api<T>(`/api/ai/org-usage/${path}`, { query: params, signal: current.signal });
    // The budget is optional: none (an empty list) or any failure leaves the charts without its line.
    const budget = api<Budgets>('/api/ai/org-usage/budgets', { signal: current.signal }).then(
      ({ budgets }) => budgets[0],
      () => undefined,
    );
    const results = await Promise.allSettled([
      get<TimeSeries>('time-series', query.timeSeries),
      get<Projection>('projection', query.common),
      get<Heatmap>('heatmap', query.heatmap),
      get<ModelEfficiency>('model-efficiency', query.models),
      get<CacheSavings>('cache-savings', query.common),
      get<EndUsers>('end-users', query.endUsers),
    ]);
    const budgetAnswer = await budget;
    if (current.signal.aborted) return;
    const errors = results.flatMap((result) => (result.status === 'rejected' ? [asApiError(result.reason)] : []));
    if (errors.some((error) => error.status === 401)) return this.#onSessionEnded(SESSION_ENDED);
    if (errors.some((error) => error.status === 403)) return show('forbidden');

    this.#render(results, budgetAnswer, settings, window);
    const limited = errors.find((error) => error.status === 429);
    const effective = results[0].status === 'fulfilled' ? results[0].value.granularity : settings.granularity;
    const described = `${formatDateTime(window.from, settings.timeZone)} – ${formatDateTime(window.to, settings.timeZone)} (${settings.timeZone}), ${effective} buckets${
      settings.granularity === 'auto' ? ' (automatic)' : ''
    }`;
    if (limited) {
      const retry = el('button', { type: 'button' }, 'Try again');
      retry.addEventListener('click', () => void this.load());
      this.#status.replaceChildren(`Too many requests. ${retryText(limited)} `, retry);
    } else {
      this.#status.textContent = errors.length ? `Some reports could not be loaded. ${described}` : `Showing ${described}.`;
    }
    this.#root.dataset.state = limited ? 'rate-limited' : errors.length ? 'error' : 'ready';
    this.#root.dataset.loaded = 'true';
  }

  #render(
    [series, projection, heatmap, models, cache, endUsers]: [
      PromiseSettledResult<TimeSeries>,
      PromiseSettledResult<Projection>,
      PromiseSettledResult<Heatmap>,
      PromiseSettledResult<ModelEfficiency>,
      PromiseSettledResult<CacheSavings>,
      PromiseSettledResult<EndUsers>,
    ],
    budget: Budget | undefined,
    settings: Settings,
    window: ReportWindow,
  ): void {
    const panels = this.#panels;
    const failed = (result: PromiseSettledResult<unknown>, panel: Panel): result is PromiseRejectedResult => {
      if (result.status === 'fulfilled') return false;
      const error = asApiError(result.reason);
      panel.error(error.status === 429 ? `Too many requests. ${retryText(error)}` : `Could not load: ${error.message}`);
      return true;
    };
    if (series.status === 'fulfilled') {
      renderTimeSeries(panels.cost, series.value, 'cost');
      renderTimeSeries(panels.tokens, series.value, 'tokens');
    } else {
      failed(series, panels.cost);
      failed(series, panels.tokens);
    }
    // The projection's chart draws the running total of the time series.
    if (!failed(projection, panels.projection) && !failed(series, panels.projection)) {
      renderProjection(panels.projection, projection.value, series.value, window, budget);
    }
    if (!failed(heatmap, panels.heatmap)) renderHeatmap(panels.heatmap, heatmap.value);
    if (!failed(models, panels.models)) renderEfficiency(panels.models, models.value, settings.action !== '');
    if (!failed(endUsers, panels.endUsers)) renderEndUsers(panels.endUsers, endUsers.value);
    if (!failed(cache, panels.cache)) renderCacheSavings(panels.cache, cache.value, settings.source);
  }
}
