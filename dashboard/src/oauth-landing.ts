/**
 * The API's browser landing after an MCP authorization server (`FRONTEND_URL` with
 * `mcpOAuth=connected&agentId&serverId` or `mcpOAuth=error&errorCode`). Kept to this one file:
 * the landing's hand-off may change, and only this reads it.
 */
import { byId } from './views.ts';

/** Removes the landing's query from the address and returns what to show once the page is up. */
export function oauthLanding(): (() => void) | undefined {
  const params = new URLSearchParams(location.search);
  const outcome = params.get('mcpOAuth');
  if (outcome !== 'connected' && outcome !== 'error') return undefined;
  const agentId = params.get('agentId');
  const hash = agentId && /^[0-9a-fA-F-]{36}$/.test(agentId) ? `#/agents/${agentId}/mcp-servers` : location.hash;
  history.replaceState(null, '', `${location.pathname}${hash}`);
  const message =
    outcome === 'connected'
      ? 'The MCP server is connected.'
      : `The MCP server could not be connected (${(params.get('errorCode') ?? 'unknown error').slice(0, 100)}).`;
  return () => {
    const notice = byId('notice');
    notice.textContent = message;
    notice.hidden = false;
  };
}
