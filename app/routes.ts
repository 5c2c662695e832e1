import type { Route } from './core/route.ts';
import { agentRoutes } from './agents/routes.ts';
import { healthRoutes } from './health/routes.ts';
import { identityCoreRoutes } from './identity/routes.ts';
import { availableMcpRoutes } from './mcp-catalog/routes.ts';
import { mcpOAuthRoutes } from './mcp-oauth/routes.ts';
import { agentMcpServerRoutes } from './mcp-servers/routes.ts';
import { toolOverrideRoutes } from './tools/override-routes.ts';
import { toolRoutes } from './tools/routes.ts';

/** Every area's routes, in the order they are mounted. Each area keeps its own thin router module. */
export const areaRoutes: Route[] = [
  ...healthRoutes,
  ...identityCoreRoutes,
  ...agentRoutes,
  ...toolRoutes,
  ...toolOverrideRoutes,
  ...availableMcpRoutes,
  ...agentMcpServerRoutes,
  ...mcpOAuthRoutes,
];
