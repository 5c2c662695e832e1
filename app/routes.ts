import type { Route } from './core/route.ts';
import { agentRoutes } from './agents/routes.ts';
import { agentCopyRoutes } from './agents/copy-routes.ts';
import { agencyRoutes } from './agency/routes.ts';
import { analyticsRoutes } from './analytics/routes.ts';
import { chatRoutes } from './chat/routes.ts';
import { turnRoutes } from './chat/turn-routes.ts';
import { providerKeyRoutes } from './chat/provider-key-routes.ts';
import { modelRoutes } from './chat/models-routes.ts';
import { budgetRoutes } from './analytics/budget/routes.ts';
import { usageEventRoutes } from './analytics/ingest/routes.ts';
import { modelPricingRoutes } from './analytics/pricing-routes.ts';
import { apiKeyRoutes } from './api-keys/routes.ts';
import { otlpRoutes } from './otlp/routes.ts';
import { healthRoutes } from './health/routes.ts';
import { logoRoutes } from './mcp-catalog/logo-routes.ts';
import { availableMcpRoutes } from './mcp-catalog/routes.ts';
import { mcpOAuthRoutes } from './mcp-oauth/routes.ts';
import { agentMcpServerRoutes } from './mcp-servers/routes.ts';
import { googleRoutes } from './identity/google-routes.ts';
import { passwordResetRoutes } from './identity/password-reset-routes.ts';
import { registrationRoutes } from './identity/registration-routes.ts';
import { identityCoreRoutes } from './identity/routes.ts';
import { notificationRoutes } from './notifications/routes.ts';
import { organizationRoutes } from './organization/routes.ts';
import { memberRoutes } from './organization/member-routes.ts';
import { acceptInvitationRoutes, invitationRoutes } from './identity/invitation-routes.ts';
import { planRoutes } from './plans/routes.ts';
import { planUsageRoutes } from './plans/usage-routes.ts';
import { billingRoutes } from './billing/routes.ts';
import { brandingRoutes } from './branding/routes.ts';
import { toolOverrideRoutes } from './tools/override-routes.ts';
import { toolRoutes } from './tools/routes.ts';
import { knowledgeRoutes } from './knowledge/routes.ts';
import { channelRoutes } from './channel/routes.ts';
import { publicRoutes } from './channel/public-routes.ts';
import { staffRoutes } from './chat/staff/routes.ts';
import { evaluationRoutes } from './evaluations/routes.ts';
import { evaluationRunRoutes } from './evaluations/run-routes.ts';

/** Every area's routes, in the order they are mounted. Each area keeps its own thin router module. */
export const areaRoutes: Route[] = [
  ...healthRoutes,
  ...identityCoreRoutes,
  ...registrationRoutes,
  ...acceptInvitationRoutes,
  ...passwordResetRoutes,
  ...googleRoutes,
  ...notificationRoutes,
  ...organizationRoutes,
  ...memberRoutes,
  ...invitationRoutes,
  ...agencyRoutes,
  ...planRoutes,
  ...planUsageRoutes,
  ...billingRoutes,
  ...brandingRoutes,
  ...agentRoutes,
  ...evaluationRoutes,
  ...evaluationRunRoutes,
  ...agentCopyRoutes,
  ...toolRoutes,
  ...toolOverrideRoutes,
  ...knowledgeRoutes,
  ...availableMcpRoutes,
  ...logoRoutes,
  ...agentMcpServerRoutes,
  ...mcpOAuthRoutes,
  ...analyticsRoutes,
  ...chatRoutes,
  ...turnRoutes,
  ...providerKeyRoutes,
  ...modelRoutes,
  ...apiKeyRoutes,
  ...usageEventRoutes,
  ...modelPricingRoutes,
  ...budgetRoutes,
  ...otlpRoutes,
  ...channelRoutes,
  ...publicRoutes,
  ...staffRoutes,
];
