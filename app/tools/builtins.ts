import type { JSONSchema7 } from '@ai-sdk/provider';
import type { PermissionStatus } from '../../sql/tool-permissions.ts';
import type { BuiltinExecutor } from './builtin-executor.ts';
import { fetchUrl } from './fetch-url.ts';
import type { Config } from '../config.ts';
import { isUuid } from '../core/schemas.ts';
import { DOCUMENTS_PAGE_DEFAULT, DOCUMENTS_PAGE_MAX, listDocumentsTool, searchKnowledgeBaseTool } from './knowledge-tools.ts';
import { sendEmailTool, SEND_EMAIL_INPUT } from './send-email.ts';
import { webSearch, WEB_SEARCH_MAX_RESULTS } from './web-search.ts';
import { deploymentExecutor, type DeploymentToolName } from './deployment-executors.ts';

/*
 * The static tool catalog (docs/interface.md §7): every built-in tool, declared once, and what a
 * tool's `providerKey` names (`parseProviderKey`: one of these providers, or an MCP server).
 */

/** Whether this deployment runs a tool, and if not, why (shown in the catalog and the console). */
export type Availability = { available: true } | { available: false; reason: string };

/**
 * One built-in tool, declared once: its name and provider, what the model reads (description,
 * input schema), who runs it, whether this deployment can, and the permission a new agent's
 * console suggests for it. `execute` is absent for the tools a deployment supplies
 * (deployment-executors.ts); `availability` is then whether one is registered.
 */
export type BuiltinTool = {
  toolName: string;
  providerKey: string;
  description: string;
  inputSchema: JSONSchema7;
  suggestedPermission: PermissionStatus;
  execute: (config: Config) => BuiltinExecutor | undefined;
  availability: (config: Config) => Availability;
};

const text = (description: string, extra: Record<string, unknown> = {}) => ({ type: 'string' as const, description, ...extra });
const object = (properties: Record<string, JSONSchema7>, required: string[]): JSONSchema7 => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const limit = (max: number, what = 'results'): JSONSchema7 => ({
  type: 'integer',
  minimum: 1,
  maximum: max,
  description: `How many ${what}, at most ${max}`,
});
/** An ISO 8601 date or date-time as a calendar tool takes it. */
const instant = (description: string) => text(description, { maxLength: 64 });

const always = (): Availability => ({ available: true });
const runs = (executor: BuiltinExecutor) => () => executor;

/** A tool only a deployment runs: available once it registered an executor (deployment-executors.ts). */
const supplied = (toolName: DeploymentToolName) => ({
  execute: () => deploymentExecutor(toolName),
  availability: (): Availability =>
    deploymentExecutor(toolName)
      ? { available: true }
      : { available: false, reason: `this deployment registered no executor for ${toolName} (docs/agents-and-tools.md)` },
});

/** Every built-in tool, in catalog order. A tool name is unique across the catalog. */
export const BUILTIN_TOOLS: readonly BuiltinTool[] = Object.freeze([
  {
    toolName: 'web_search',
    providerKey: 'web',
    description: 'Searches the public web and returns the top results with titles, links and snippets.',
    inputSchema: object({ query: text('What to search for', { maxLength: 500 }), limit: limit(WEB_SEARCH_MAX_RESULTS) }, ['query']),
    suggestedPermission: 'always_allow',
    execute: runs(webSearch),
    availability: (config: Config): Availability =>
      config.tools.webSearchUrl ? { available: true } : { available: false, reason: 'WEB_SEARCH_URL is not set' },
  },
  {
    toolName: 'fetch_url',
    providerKey: 'web',
    description: 'Downloads a web page and returns its readable text.',
    inputSchema: object({ url: text('The http(s) URL of the page', { maxLength: 2048 }) }, ['url']),
    suggestedPermission: 'always_allow',
    execute: runs(fetchUrl),
    availability: always,
  },
  {
    toolName: 'search_knowledge_base',
    providerKey: 'knowledge',
    description: "Searches the agent's documents and returns the most relevant passages with their document name and a score.",
    inputSchema: object({ query: text('What to look for: a question or keywords', { maxLength: 500 }), limit: limit(20) }, ['query']),
    suggestedPermission: 'always_allow',
    execute: runs(searchKnowledgeBaseTool),
    availability: always,
  },
  {
    toolName: 'list_documents',
    providerKey: 'knowledge',
    description: `Lists the documents in the agent's knowledge base, oldest first, a page at a time (${DOCUMENTS_PAGE_DEFAULT} unless limit says otherwise).`,
    inputSchema: object(
      {
        cursor: text('Where to go on: the nextCursor of the page before; leave it out for the first page', { maxLength: 200 }),
        limit: limit(DOCUMENTS_PAGE_MAX, 'documents'),
      },
      [],
    ),
    suggestedPermission: 'always_allow',
    execute: runs(listDocumentsTool),
    availability: always,
  },
  {
    toolName: 'send_email',
    providerKey: 'email',
    description: 'Sends a plain-text email on behalf of the user to at most 10 recipients; replies go to the user.',
    inputSchema: SEND_EMAIL_INPUT,
    suggestedPermission: 'needs_approval',
    execute: runs(sendEmailTool),
    availability: (config: Config): Availability =>
      config.notifications.smtpUrl || config.nodeEnv === 'development'
        ? { available: true }
        : { available: false, reason: 'SMTP_URL is not set' },
  },
  {
    toolName: 'search_inbox',
    providerKey: 'email',
    description: "Searches the user's mailbox and returns matching messages.",
    inputSchema: object({ query: text('What to look for', { maxLength: 500 }) }, ['query']),
    suggestedPermission: 'needs_approval',
    ...supplied('search_inbox'),
  },
  {
    toolName: 'list_events',
    providerKey: 'calendar',
    description: "Lists the user's calendar events in a time range.",
    inputSchema: object({ from: instant('Start, ISO 8601'), to: instant('End, ISO 8601') }, ['from', 'to']),
    suggestedPermission: 'needs_approval',
    ...supplied('list_events'),
  },
  {
    toolName: 'create_event',
    providerKey: 'calendar',
    description: "Creates an event in the user's calendar and invites the attendees.",
    inputSchema: object(
      {
        title: text('Title', { maxLength: 500 }),
        start: instant('Start, ISO 8601'),
        end: instant('End, ISO 8601'),
        attendees: { type: 'array', items: text('An email address', { maxLength: 320 }), maxItems: 100 },
      },
      ['title', 'start', 'end'],
    ),
    suggestedPermission: 'needs_approval',
    ...supplied('create_event'),
  },
]);

const byName = new Map(BUILTIN_TOOLS.map((tool) => [tool.toolName, tool]));

/**
 * The built-in tool with this name, if the catalog has one (docs/interface.md §7). A built-in
 * tool in an agent's set must name its own provider. Tools of an agent's MCP servers are not
 * listed here (their provider key is `mcp:<serverId>`, read by `parseProviderKey`).
 */
export const findBuiltinTool = (toolName: string): BuiltinTool | undefined => byName.get(toolName);

/** The catalog as `GET /api/ai/tools/catalog` answers it for this deployment. */
export const catalogFor = (config: Config) =>
  BUILTIN_TOOLS.map((tool) => {
    const availability = tool.availability(config);
    return {
      toolName: tool.toolName,
      providerKey: tool.providerKey,
      description: tool.description,
      suggestedPermission: tool.suggestedPermission,
      available: availability.available,
      unavailableReason: availability.available ? null : availability.reason,
    };
  });

/**
 * What a tool's `providerKey` names: a built-in provider (`web`, `knowledge`, … as declared
 * above; whether the tool is really that provider's is `findBuiltinTool`'s question), or an MCP
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
