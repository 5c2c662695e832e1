/**
 * The usage dashboard: sign in, then five analytics answers for the caller's organization.
 * Only same-origin `/api` routes that exist for every client are called; nothing is computed
 * that the API does not answer, apart from running totals for drawing.
 */
import './styles.css';
import { ApiError, requestJson } from './api.ts';
import { Controls, type Settings } from './controls.ts';
import { el, formatDateTime } from './format.ts';
import { Panel } from './panel.ts';
import { renderCacheSavings } from './panels/cache-savings.ts';
import { renderEfficiency } from './panels/efficiency.ts';
import { renderHeatmap } from './panels/heatmap.ts';
import { renderProjection } from './panels/projection.ts';
import { renderTimeSeries } from './panels/time-series.ts';
import { clearSession, loadSession, saveSession } from './session.ts';
import type { CacheSavings, Heatmap, ModelEfficiency, Projection, TimeSeries } from './types.ts';
import { reportWindow, type ReportWindow } from './window.ts';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const views = { signIn: byId('sign-in'), dashboard: byId('dashboard'), forbidden: byId('forbidden') };
const notice = byId<HTMLParagraphElement>('notice');
const status = byId<HTMLParagraphElement>('status');
const who = byId('who');
const panels = {
  cost: new Panel('panel-cost'),
  tokens: new Panel('panel-tokens'),
  projection: new Panel('panel-projection'),
  cache: new Panel('panel-cache'),
  heatmap: new Panel('panel-heatmap'),
  models: new Panel('panel-models'),
};
const allPanels = Object.values(panels);

function show(view: keyof typeof views, message = ''): void {
  for (const [name, element] of Object.entries(views)) element.hidden = name !== view;
  notice.textContent = message;
  notice.hidden = message === '';
  const session = loadSession();
  who.hidden = view === 'signIn' || !session;
  byId('who-email').textContent = session?.email ?? '';
  document.body.dataset.view = view;
}

const retryText = (error: ApiError) =>
  error.retryAfterSeconds ? `Try again in ${Math.ceil(error.retryAfterSeconds)} seconds.` : 'Try again in a moment.';

// ---- sign in -------------------------------------------------------------------------------

const signInForm = byId<HTMLFormElement>('sign-in-form');
const signInError = byId<HTMLParagraphElement>('sign-in-error');

function showSignIn(message = ''): void {
  clearSession();
  controller?.abort();
  show('signIn', message);
  byId<HTMLInputElement>('email').focus();
}

signInForm.addEventListener('submit', (event) => {
  event.preventDefault();
  void signIn();
});

async function signIn(): Promise<void> {
  const data = new FormData(signInForm);
  const email = String(data.get('email') ?? '').trim();
  const password = String(data.get('password') ?? '');
  signInError.hidden = true;
  if (!email || !password) {
    signInError.textContent = 'Enter your email and password.';
    signInError.hidden = false;
    return;
  }
  const button = signInForm.querySelector('button');
  if (button) button.disabled = true;
  try {
    const tokens = await requestJson<{ accessToken: string }>('/api/identity/auth/user/login', { body: { email, password } });
    const me = await requestJson<{ email: string }>('/api/identity/me', { token: tokens.accessToken });
    saveSession({ accessToken: tokens.accessToken, email: me.email });
    byId<HTMLInputElement>('password').value = '';
    show('dashboard');
    byId('main').focus();
    void load();
  } catch (error) {
    const apiError = error instanceof ApiError ? error : undefined;
    signInError.textContent =
      apiError?.status === 401
        ? 'Wrong email or password.'
        : apiError?.status === 429
          ? `Too many sign-in attempts. ${retryText(apiError)}`
          : `Sign-in failed: ${error instanceof Error ? error.message : String(error)}`;
    signInError.hidden = false;
    document.body.dataset.signIn = apiError ? String(apiError.status) : 'error';
  } finally {
    if (button) button.disabled = false;
  }
}

byId('sign-out').addEventListener('click', () => showSignIn('Signed out.'));

// ---- the reports ---------------------------------------------------------------------------

let controller: AbortController | undefined;
const controls = new Controls(() => void load());

function queryOf(settings: Settings, window: ReportWindow) {
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
    models: { ...common, limit: '50' },
  };
}

async function load(): Promise<void> {
  const session = loadSession();
  if (!session) return showSignIn();
  const settings = controls.settings;
  const window = reportWindow(settings, new Date());
  if (typeof window === 'string') {
    status.textContent = window;
    return;
  }
  controller?.abort();
  const current = new AbortController();
  controller = current;
  const query = queryOf(settings, window);
  const root = views.dashboard;
  Object.assign(root.dataset, {
    from: query.common.from,
    to: query.common.to,
    source: settings.source,
    timezone: settings.timeZone,
    granularity: settings.granularity,
    groupBy: settings.groupBy,
    loaded: 'false',
  });
  for (const panel of allPanels) panel.loading();
  status.textContent = 'Loading…';
  const get = <T>(path: string, params: Record<string, string>) =>
    requestJson<T>(`/api/ai/org-usage/${path}`, { token: session.accessToken, query: params, signal: current.signal });
  const [series, projection, heatmap, models, cache] = await Promise.allSettled([
    get<TimeSeries>('time-series', query.timeSeries),
    get<Projection>('projection', query.common),
    get<Heatmap>('heatmap', query.heatmap),
    get<ModelEfficiency>('model-efficiency', query.models),
    get<CacheSavings>('cache-savings', query.common),
  ]);
  if (current.signal.aborted) return;
  const errors = [series, projection, heatmap, models, cache].flatMap((result) =>
    result.status === 'rejected' ? [result.reason instanceof ApiError ? result.reason : new ApiError(0, String(result.reason))] : [],
  );
  if (errors.some((error) => error.status === 401)) return showSignIn('Your session has ended. Sign in again.');
  if (errors.some((error) => error.status === 403)) {
    show('forbidden');
    return;
  }
  const limited = errors.find((error) => error.status === 429);
  const failed = (result: PromiseSettledResult<unknown>, panel: Panel) => {
    if (result.status === 'fulfilled') return false;
    const error = result.reason instanceof ApiError ? result.reason : undefined;
    panel.error(error?.status === 429 ? `Too many requests. ${retryText(error)}` : `Could not load: ${error?.message ?? String(result.reason)}`);
    return true;
  };
  if (series.status === 'fulfilled') {
    renderTimeSeries(panels.cost, series.value, 'cost');
    renderTimeSeries(panels.tokens, series.value, 'tokens');
  } else {
    failed(series, panels.cost);
    failed(series, panels.tokens);
  }
  if (!failed(projection, panels.projection) && projection.status === 'fulfilled') {
    if (series.status === 'fulfilled') renderProjection(panels.projection, projection.value, series.value, window);
    else failed(series, panels.projection);
  }
  if (!failed(heatmap, panels.heatmap) && heatmap.status === 'fulfilled') renderHeatmap(panels.heatmap, heatmap.value);
  if (!failed(models, panels.models) && models.status === 'fulfilled') renderEfficiency(panels.models, models.value);
  if (!failed(cache, panels.cache) && cache.status === 'fulfilled') renderCacheSavings(panels.cache, cache.value, settings.source);

  const effective = series.status === 'fulfilled' ? series.value.granularity : settings.granularity;
  const described = `${formatDateTime(window.from, settings.timeZone)} – ${formatDateTime(window.to, settings.timeZone)} (${settings.timeZone}), ${effective} buckets${
    settings.granularity === 'auto' ? ' (automatic)' : ''
  }`;
  if (limited) {
    const retry = el('button', { type: 'button' }, 'Try again');
    retry.addEventListener('click', () => void load());
    status.replaceChildren(`Too many requests. ${retryText(limited)} `, retry);
    root.dataset.state = 'rate-limited';
  } else {
    status.textContent = errors.length ? `Some reports could not be loaded. ${described}` : `Showing ${described}.`;
    root.dataset.state = errors.length ? 'error' : 'ready';
  }
  root.dataset.loaded = 'true';
}

// ---- start ---------------------------------------------------------------------------------

if (loadSession()) {
  show('dashboard');
  void load();
} else {
  showSignIn();
}
