/**
 * Connecting an OAuth MCP server: the API starts the authorization (PKCE, resource discovery)
 * and answers where to send the browser; the authorization server then returns the browser to
 * the API's landing, which sends it back here (`oauth-landing.ts`). Kept to this file on purpose:
 * the landing's hand-off to the front-end may change.
 */
import { api } from './authed.ts';

export async function connectOAuth(agentId: string, serverId: string): Promise<void> {
  const { authorizationUrl } = await api<{ authorizationUrl: string }>(`/api/ai/agents/${agentId}/mcp-servers/${serverId}/oauth/initiate`, {
    method: 'POST',
  });
  const target = new URL(authorizationUrl);
  if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new Error('The authorization URL is not a web address');
  window.location.assign(target.href);
}
