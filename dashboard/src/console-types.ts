/**
 * Answers of the API the console's pages read, taken from the generated API types
 * (dashboard/src/api-types.generated.ts; docs/architecture.md, "Decisions").
 */
import type { ApiResponse } from './api-types.generated.ts';

export type Agent = ApiResponse<'GET /ai/agents/:agentId'>;
/** `GET /api/ai/models`: the priced models, and whether the organization may name any (its own key). */
export type ModelCatalog = ApiResponse<'GET /ai/models'>;

export type ToolEntry = ApiResponse<'GET /ai/agents/:agentId/tools'>['tools'][number];
export type PermissionStatus = ToolEntry['permissionStatus'];
/** A built-in tool; `available` false: this deployment does not run it (`unavailableReason` says why), so no model is offered it. */
export type CatalogTool = ApiResponse<'GET /ai/tools/catalog'>[number];

export type McpServer = ApiResponse<'GET /ai/agents/:agentId/mcp-servers/:serverId'>;

export type CatalogEntry = ApiResponse<'GET /available-mcps'>[number];
export type CatalogVariant = CatalogEntry['variants'][number];
