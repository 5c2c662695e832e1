/** The usage page: the plan's limits and their use (a business's), the report settings and the six panels over the analytics endpoints. */
import { Controls } from '../controls.ts';
import { Reports } from '../reports.ts';
import { renderPlanLimits } from '../plan-limits.ts';
import type { PageContext } from '../page.ts';
import { session } from '../session.ts';
import { show } from '../views.ts';

let reports: Reports | undefined;

export async function render({ signal }: PageContext): Promise<void> {
  show('dashboard');
  if (!reports) {
    // The callbacks run on user actions, after both exist.
    const controls = new Controls(() => void current.load());
    const current = new Reports(controls, (message) => session.onEnded(message));
    reports = current;
  }
  const active = reports;
  signal.addEventListener('abort', () => active.abort());
  await Promise.all([active.load(), renderPlanLimits(signal)]);
}
