import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Config } from '../config.ts';
import { safeFetch, type OutboundOptions } from '../net/safe-fetch.ts';
import { urlPolicyFor } from '../net/url-policy.ts';

/** The bounds of every outbound request of the flow, from configuration. */
export function outboundOptions(config: Config): OutboundOptions {
  return {
    policy: urlPolicyFor(config),
    timeoutMs: config.mcpOAuth.outboundTimeoutMs,
    maxResponseBytes: config.mcpOAuth.outboundMaxResponseBytes,
    maxRedirects: config.mcpOAuth.outboundMaxRedirects,
  };
}

/**
 * The `fetchFn` given to the MCP SDK's client auth: every request goes through `safeFetch`
 * (URL policy, connect-time address check, deadline, body cap) and is answered buffered, so a
 * failure is an OutboundError thrown here, never half a body inside the SDK. A POST carries a
 * code, a secret or a token: it follows no redirect (`too_many_redirects`).
 */
export function oauthFetch(config: Config): FetchLike {
  const options = outboundOptions(config);
  return async (url, init = {}) => {
    const method = init.method === 'POST' ? 'POST' : 'GET';
    const headers = Object.fromEntries(new Headers(init.headers));
    const body = init.body === undefined || init.body === null ? {} : { body: String(init.body) };
    const answer = await safeFetch(
      String(url),
      { method, headers, ...body },
      method === 'POST' ? { ...options, maxRedirects: 0 } : options,
    );
    return new Response(answer.body.length > 0 ? answer.body : null, { status: answer.status, headers: answer.headers });
  };
}

/** Our redirect URI, registered with every authorization server exactly as sent. */
export const redirectUriOf = (config: Config) => `${config.publicBaseUrl}/api/ai/mcp-oauth/callback`;
