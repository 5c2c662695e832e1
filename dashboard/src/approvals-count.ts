/**
 * The count of pending approvals beside "Approvals" in the navigation. Read on each navigation and
 * after an answer in the inbox, never on a timer: the mail to staff is what tells of a new one.
 * An account that may not read approvals (403), or any failure, shows no count.
 */
import type { ApiResponse } from './api-types.generated.ts';
import { api } from './authed.ts';

/** The most the count reads; beyond, the navigation says "100+". */
const COUNTED = 100;
let loading: Promise<void> | undefined;

export function refreshApprovalCount(): Promise<void> {
  loading ??= read().finally(() => {
    loading = undefined;
  });
  return loading;
}

async function read(): Promise<void> {
  const badge = document.getElementById('approvals-count');
  if (!badge) return;
  try {
    const page = await api<ApiResponse<'GET /ai/approvals'>>('/api/ai/approvals', {
      query: { status: 'pending', limit: String(COUNTED) },
    });
    const count = page.approvals.length;
    const shown = page.hasMore ? `${COUNTED}+` : String(count);
    badge.dataset.count = shown;
    badge.hidden = count === 0;
    badge.replaceChildren(shown);
    const spoken = document.createElement('span');
    spoken.className = 'sr-only';
    spoken.textContent = ' pending';
    badge.append(spoken);
  } catch {
    badge.hidden = true;
    delete badge.dataset.count;
  }
}
