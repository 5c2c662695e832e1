/**
 * Hash routes, each page a module of its own loaded on first visit (esbuild splits them into
 * chunks), so the usage charts are not downloaded to answer an approval and the reverse.
 */
import type { PageModule } from './page.ts';
import { refreshApprovalCount } from './approvals-count.ts';
import { byId } from './views.ts';

const ID = '([0-9a-fA-F-]{36})';
const USAGE = /^(?:#\/?(?:usage)?)?$/;
const routes: [RegExp, () => Promise<PageModule>][] = [
  [USAGE, () => import('./pages/usage.ts')],
  [/^#\/agents$/, () => import('./pages/agents.ts')],
  [new RegExp(`^#/agents/${ID}$`), () => import('./pages/agent.ts')],
  [new RegExp(`^#/agents/${ID}/tools$`), () => import('./pages/tools.ts')],
  [new RegExp(`^#/agents/${ID}/mcp-servers$`), () => import('./pages/mcp-servers.ts')],
  [new RegExp(`^#/agents/${ID}/website-chat$`), () => import('./pages/website-chat.ts')],
  [new RegExp(`^#/agents/${ID}/documents$`), () => import('./pages/documents.ts')],
  [new RegExp(`^#/agents/${ID}/versions$`), () => import('./pages/agent-versions.ts')],
  [new RegExp(`^#/agents/${ID}/tests(?:\\?from=([A-Za-z0-9_-]{1,128}))?$`), () => import('./pages/agent-tests.ts')],
  [new RegExp(`^#/agents/${ID}/conversations/${ID}$`), () => import('./pages/transcript.ts')],
  [new RegExp(`^#/agents/${ID}/chat(?:/([A-Za-z0-9_-]{1,128}))?$`), () => import('./pages/chat.ts')],
  [/^#\/approvals$/, () => import('./pages/approvals.ts')],
  [/^#\/members$/, () => import('./pages/members.ts')],
  [/^#\/clients$/, () => import('./pages/clients.ts')],
  [/^#\/plans$/, () => import('./pages/plans.ts')],
  [/^#\/branding$/, () => import('./pages/branding.ts')],
  [/^#\/settings$/, () => import('./pages/settings.ts')],
];

let current: AbortController | undefined;

function markCurrentLink(hash: string): void {
  const section = USAGE.test(hash) ? '#/usage' : `#/${hash.split('/')[1] ?? ''}`;
  for (const link of document.querySelectorAll<HTMLAnchorElement>('#nav a')) {
    if (link.getAttribute('href') === section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

/** Renders the page of `location.hash` (the usage page for an empty or unknown hash). */
export async function route(): Promise<void> {
  current?.abort();
  const controller = new AbortController();
  current = controller;
  const hash = location.hash;
  let params: string[] = [];
  let load = routes[0]![1];
  for (const [pattern, loader] of routes) {
    const found = pattern.exec(hash);
    if (found) {
      params = found.slice(1).filter((part): part is string => part !== undefined);
      load = loader;
      break;
    }
  }
  markCurrentLink(hash);
  void refreshApprovalCount();
  const page = await load();
  if (controller.signal.aborted) return;
  const root = byId('page');
  root.replaceChildren();
  await page.render({ root, params, signal: controller.signal });
}

/** Stops the current page (on sign-out). */
export function leave(): void {
  current?.abort();
  current = undefined;
}
