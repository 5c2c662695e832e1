/**
 * The static tool catalog (docs/interface.md §7): the built-in providers and their tools. A tool name
 * is unique across the catalog; a built-in tool in an agent's set must name its own provider.
 * Tools of an agent's MCP servers are not listed here (their provider key is `mcp:<serverId>`).
 */
export type CatalogTool = { toolName: string; providerKey: string; description: string };

const provider = (providerKey: string, tools: Record<string, string>): CatalogTool[] =>
  Object.entries(tools).map(([toolName, description]) => ({ toolName, providerKey, description }));

export const TOOL_CATALOG: readonly CatalogTool[] = Object.freeze([
  ...provider('web', {
    web_search: 'Searches the public web and returns the top results with titles, links and snippets.',
    fetch_url: 'Downloads a web page and returns its readable text.',
  }),
  ...provider('knowledge', {
    search_knowledge_base: "Searches the agent's indexed documents and returns the most relevant passages.",
    list_documents: "Lists the documents in the agent's knowledge base.",
  }),
  ...provider('email', {
    send_email: 'Sends an email on behalf of the user to the given recipients.',
    search_inbox: "Searches the user's mailbox and returns matching messages.",
  }),
  ...provider('calendar', {
    list_events: "Lists the user's calendar events in a time range.",
    create_event: "Creates an event in the user's calendar and invites the attendees.",
  }),
]);

const byName = new Map(TOOL_CATALOG.map((tool) => [tool.toolName, tool]));

/** The built-in tool with this name, if the catalog has one. */
export const findCatalogTool = (toolName: string): CatalogTool | undefined => byName.get(toolName);

/** Provider keys of external MCP servers: `mcp:<serverId>`. */
export const MCP_PROVIDER_PREFIX = 'mcp:';
