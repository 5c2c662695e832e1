import { isUuid } from '../core/schemas.ts';

/**
 * What a tool's `providerKey` names: a built-in provider (`web`, `knowledge`, … as declared in
 * builtins.ts; whether the tool is really that provider's is the catalog's question), or an MCP
 * server of the agent, written `mcp:<serverId>`. This is the one place the key is read.
 */
export type ToolProvider = { kind: 'builtin'; provider: string } | { kind: 'mcp'; serverId: string };

const MCP_PREFIX = 'mcp:';

/**
 * The provider a key names, or null for a key that claims an MCP server but carries no UUID.
 * The server id is lower-cased, as Postgres writes a uuid, so it compares equal to stored ids.
 */
export function parseProviderKey(providerKey: string): ToolProvider | null {
  if (!providerKey.startsWith(MCP_PREFIX)) return { kind: 'builtin', provider: providerKey };
  const id = providerKey.slice(MCP_PREFIX.length);
  return isUuid(id) ? { kind: 'mcp', serverId: id.toLowerCase() } : null;
}
