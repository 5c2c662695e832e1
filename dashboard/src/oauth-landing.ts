/**
 * The API's browser landing after an MCP authorization server: `FRONTEND_URL` with
 * `mcpOAuth=handoff&handoff&agentId&serverId`, or `mcpOAuth=error&errorCode`. A hand-off is
 * completed only with the `browserKey` this tab kept when it started the connection
 * (`mcp-oauth-connect.ts`); without one, this browser did not start it and nothing is called
 * (docs/mcp-oauth.md, "For a front-end").
 */
import { ApiError } from './api.ts';
import { api } from './authed.ts';
import { keptFlowKey, type KeptFlow } from './mcp-oauth-connect.ts';
import { byId } from './views.ts';

const UUID = /^[0-9a-fA-F-]{36}$/;
const NOT_STARTED_HERE = 'This connection was not started in this browser; nothing was connected. Start it again from the server’s page.';

/**
 * Removes the landing's query from the address and returns what to do once the session is up
 * and the page is shown (`rerender` shows it again after a completed connection).
 */
export function oauthLanding(): ((rerender: () => Promise<void>) => Promise<void>) | undefined {
  const params = new URLSearchParams(location.search);
  const outcome = params.get('mcpOAuth');
  if (outcome !== 'handoff' && outcome !== 'error') return undefined;
  const agentId = params.get('agentId');
  const serverId = params.get('serverId');
  const handoff = params.get('handoff');
  const hash = agentId && UUID.test(agentId) ? `#/agents/${agentId}/mcp-servers` : location.hash;
  history.replaceState(null, '', `${location.pathname}${hash}`);
  if (outcome === 'error')
    return async () => say(`The MCP server could not be connected (${(params.get('errorCode') ?? 'unknown error').slice(0, 100)}).`);
  return async (rerender) => {
    const kept = serverId && UUID.test(serverId) ? takeKept(serverId) : undefined;
    if (!kept || !handoff) return say(NOT_STARTED_HERE);
    try {
      await api('/api/ai/mcp-oauth/complete', { method: 'POST', body: { handoff, browserKey: kept.browserKey } });
      await rerender(); // the page shows the server's new status
      say('The MCP server is connected.');
    } catch (error) {
      say(error instanceof ApiError && error.status === 400 ? NOT_STARTED_HERE : 'The MCP server could not be connected. Start it again.');
    }
  };
}

function takeKept(serverId: string): KeptFlow | undefined {
  const raw = sessionStorage.getItem(keptFlowKey(serverId));
  sessionStorage.removeItem(keptFlowKey(serverId));
  if (!raw) return undefined;
  try {
    const kept = JSON.parse(raw) as Partial<KeptFlow>;
    return typeof kept.browserKey === 'string' ? (kept as KeptFlow) : undefined;
  } catch {
    return undefined;
  }
}

function say(message: string): void {
  const notice = byId('notice');
  notice.textContent = message;
  notice.hidden = false;
}
