import { deleteProviderKey, findProviderKey, upsertProviderKey } from '../../sql/provider-keys.ts';
import { ValidationError } from '../core/errors.ts';
import { defineRoute } from '../core/route.ts';
import { ValidationErrorBody } from '../core/schemas.ts';
import { sealJson } from '../crypto/credentials.ts';
import { withoutTrailingSlash } from '../env-variable.ts';
import { checkUrlTextToSave, urlPolicyFor, UrlRefusedError } from '../net/url-policy.ts';
import { providerKeyContext } from '../metering/models.ts';
import { ProviderKeyBody, ProviderKeyStatus } from './schemas.ts';
import { ORGANIZATION_SCOPE } from '../core/route-scope.ts';

const tags = ['chat'];
const policy = { subject: 'organization', action: 'update' } as const;

/** BYOK: the organization's own model-provider key (docs/chat.md, "Bring your own key"). The key is never answered or logged. */
export const providerKeyRoutes = [
  defineRoute({
    method: 'PUT',
    path: '/ai/provider-key',
    summary: "Set the organization's own model-provider key (sealed at rest)",
    tags,
    auth: 'jwt',
    principal: 'user',
    policy,
    scope: ORGANIZATION_SCOPE,
    rateLimit: { limit: 10, windowMs: '1m', identifierType: 'userId', source: 'project' },
    schemas: { body: ProviderKeyBody },
    status: 204,
    responses: {
      204: { description: 'Stored' },
      400: {
        description:
          'Invalid body, or a baseUrl the outbound URL policy refuses by its text alone (scheme, user info, a private IP ' +
          'literal, a metadata host name); a host name is not looked up here but at every call',
        schema: ValidationErrorBody,
      },
    },
    handler: async ({ deps, scope, body }) => {
      let baseUrl: string | null = null;
      if (body.baseUrl !== undefined) {
        try {
          // No DNS lookup here: the name is checked at every call (app/net/url-policy.ts).
          baseUrl = withoutTrailingSlash(checkUrlTextToSave(body.baseUrl, urlPolicyFor(deps.config)).href);
        } catch (error) {
          if (error instanceof UrlRefusedError) throw new ValidationError([{ path: ['baseUrl'], message: error.message }]);
          throw error;
        }
      }
      await upsertProviderKey(deps.db, {
        organizationId: scope.organizationId,
        sealed: sealJson(deps.config.credentialsKeyring, body.apiKey, providerKeyContext(scope.organizationId)),
        baseUrl,
        keyLastFour: body.apiKey.slice(-4),
        now: deps.clock(),
      });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/provider-key',
    summary: 'Whether the organization has its own model-provider key (never the key)',
    tags,
    auth: 'jwt',
    principal: 'user',
    policy,
    scope: ORGANIZATION_SCOPE,
    responses: { 200: { description: 'The key status', schema: ProviderKeyStatus } },
    handler: async ({ deps, scope }) => {
      const stored = await findProviderKey(deps.db, scope.organizationId);
      return { configured: stored !== null, baseUrl: stored?.baseUrl ?? null, keyLastFour: stored?.keyLastFour ?? null };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/ai/provider-key',
    summary: "Remove the organization's own model-provider key",
    tags,
    auth: 'jwt',
    principal: 'user',
    policy,
    scope: ORGANIZATION_SCOPE,
    status: 204,
    responses: { 204: { description: 'Removed (also when there was none)' } },
    handler: async ({ deps, scope }) => {
      await deleteProviderKey(deps.db, scope.organizationId);
    },
  }),
];
