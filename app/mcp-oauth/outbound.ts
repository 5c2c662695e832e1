import type { Config } from '../config.ts';
import type { OutboundOptions } from '../net/safe-fetch.ts';
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

/** Our redirect URI, registered with every authorization server exactly as sent. */
export const redirectUriOf = (config: Config) => `${config.publicBaseUrl}/api/ai/mcp-oauth/callback`;
