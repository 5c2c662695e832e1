/**
 * Connecting an OAuth MCP server: the API starts the authorization (PKCE, resource discovery)
 * and answers where to send the browser and a `browserKey` for this browser only; the
 * authorization server then returns the browser to the API's landing, which sends it back here
 * with a one-time hand-off that `oauth-landing.ts` completes with the kept key.
 */
import type { ApiResponse } from './api-types.generated.ts';
import { api } from './authed.ts';

/** Where this tab keeps the key of a connection it started (sessionStorage: this tab and origin only). */
export const keptFlowKey = (serverId: string) => `mcpOAuth:${serverId}`;

export type KeptFlow = { browserKey: string; agentId: string; serverId: string };

export async function connectOAuth(agentId: string, serverId: string): Promise<void> {
  const { authorizationUrl, browserKey } = await api<ApiResponse<'POST /ai/agents/:agentId/mcp-servers/:serverId/oauth/initiate'>>(
    `/api/ai/agents/${agentId}/mcp-servers/${serverId}/oauth/initiate`,
    { method: 'POST' },
  );
  const target = new URL(authorizationUrl);
  if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new Error('The authorization URL is not a web address');
  const kept: KeptFlow = { browserKey, agentId, serverId };
  sessionStorage.setItem(keptFlowKey(serverId), JSON.stringify(kept));
  window.location.assign(target.href);
}
