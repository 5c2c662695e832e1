/** The caller's approve-always overrides of one agent, each with a Remove button. */
import type { ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { el } from '../format.ts';
import { describeError, say, statusLine } from '../ui.ts';

export async function renderOverrides(container: HTMLElement, base: string, signal?: AbortSignal): Promise<void> {
  const status = statusLine('overrides-status');
  const list = el('ul', { class: 'overrides' });
  container.replaceChildren(status, list);
  try {
    const { overrides } = await api<ApiResponse<'GET /ai/agents/:agentId/tool-overrides'>>(`${base}/tool-overrides`, { signal });
    if (overrides.length === 0) say(status, 'None: every tool that needs approval asks you each time.', 'ok');
    for (const override of overrides) {
      const remove = el('button', { type: 'button', 'aria-label': `Remove the override of ${override.toolName}` }, 'Remove');
      const item = el('li', { 'data-tool': override.toolName }, el('code', {}, override.toolName), ' ', remove);
      remove.addEventListener('click', () => {
        remove.disabled = true;
        api(`${base}/tool-overrides/${encodeURIComponent(override.toolName)}`, { method: 'DELETE' })
          .then(() => renderOverrides(container, base))
          .catch((error: unknown) => {
            remove.disabled = false;
            say(status, describeError(error));
          });
      });
      list.append(item);
    }
  } catch (error) {
    if (!signal?.aborted) say(status, describeError(error));
  }
}
