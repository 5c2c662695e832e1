import { findBuiltinTool } from './builtins.ts';

/**
 * The static tool catalog (docs/interface.md §7): the built-in providers and their tools, each
 * declared once in builtins.ts. A built-in tool in an agent's set must name its own provider.
 * Tools of an agent's MCP servers are not listed here (their provider key is `mcp:<serverId>`, read by provider-key.ts).
 */
export type CatalogTool = { toolName: string; providerKey: string; description: string };

/** The built-in tool with this name, if the catalog has one. */
export const findCatalogTool = (toolName: string): CatalogTool | undefined => findBuiltinTool(toolName);
