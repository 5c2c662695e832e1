import { Type } from '@sinclair/typebox';
import { uuidv7 } from 'uuidv7';
import { countApiKeysUnderLock, deleteApiKeyOfOrganization, insertApiKey, listApiKeysOfOrganization } from '../../sql/api-keys.ts';
import { newApiKeySecret } from '../core/api-key-secret.ts';
import { HttpError, notFound } from '../core/errors.ts';
import { API_KEY_SCOPES, defineRoute } from '../core/route.ts';
import { DateTime, ErrorBody, StrictObject, UuidParam, ValidationErrorBody } from '../core/schemas.ts';

const Scope = Type.Union(API_KEY_SCOPES.map((scope) => Type.Literal(scope)));

const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Scope),
  prefix: Type.String({ description: 'The first 12 characters of the key, to recognise it' }),
  createdAt: DateTime(),
  lastUsedAt: Type.Union([DateTime(), Type.Null()], { description: 'Updated at most once a minute' }),
});

const CreatedApiKeySchema = Type.Intersect([
  ApiKeySchema,
  Type.Object({ key: Type.String({ description: 'The key itself (`agk_...`): shown in this answer only, stored hashed' }) }),
]);

const CreateApiKeyBody = StrictObject({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  scopes: Type.Array(Scope, { minItems: 1, maxItems: API_KEY_SCOPES.length, uniqueItems: true }),
});

/** Every organization may hold at most this many keys (a bound on what one account can create). */
export const MAX_API_KEYS_PER_ORGANIZATION = 100;

const ORGANIZATION_UPDATE = { subject: 'organization', action: 'update' } as const;

/** Machine credentials of the caller's organization for the ingestion routes (docs/analytics.md). */
export const apiKeyRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api-keys',
    summary: 'Create an API key for the ingestion routes; the key is shown once',
    tags: ['api-keys'],
    auth: 'jwt',
    principal: 'user',
    policy: ORGANIZATION_UPDATE,
    schemas: { body: CreateApiKeyBody },
    status: 201,
    responses: {
      201: { description: 'The key, with `key` shown this once', schema: CreatedApiKeySchema },
      400: { description: 'Invalid body', schema: ValidationErrorBody },
      409: { description: `The organization already holds ${MAX_API_KEYS_PER_ORGANIZATION} keys`, schema: ErrorBody },
    },
    handler: async ({ deps, auth, body }) =>
      deps.db.transaction(async (tx) => {
        // Counted under the organization's lock: 20 concurrent creates at 99 keys make one more, not 20.
        if ((await countApiKeysUnderLock(tx, auth.organizationId)) >= MAX_API_KEYS_PER_ORGANIZATION) {
          throw new HttpError(409, `An organization holds at most ${MAX_API_KEYS_PER_ORGANIZATION} API keys`);
        }
        const secret = newApiKeySecret(deps.config.jwtSecret);
        const stored = await insertApiKey(tx, {
          id: uuidv7(),
          organizationId: auth.organizationId,
          name: body.name,
          scopes: body.scopes,
          prefix: secret.prefix,
          keyHash: secret.hash,
          createdBy: auth.sub,
          createdAt: deps.clock(),
        });
        return { ...stored, key: secret.key };
      }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api-keys',
    summary: "The organization's API keys (never the keys themselves)",
    tags: ['api-keys'],
    auth: 'jwt',
    principal: 'user',
    policy: ORGANIZATION_UPDATE,
    responses: { 200: { description: 'Keys, oldest first', schema: Type.Object({ apiKeys: Type.Array(ApiKeySchema) }) } },
    handler: async ({ deps, auth }) => ({ apiKeys: await listApiKeysOfOrganization(deps.db, auth.organizationId) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api-keys/:keyId',
    summary: 'Delete an API key: it is refused from the next request on',
    tags: ['api-keys'],
    auth: 'jwt',
    principal: 'user',
    policy: ORGANIZATION_UPDATE,
    schemas: { params: UuidParam('keyId') },
    status: 204,
    responses: {
      204: { description: 'Deleted' },
      400: { description: 'keyId is not a UUID', schema: ValidationErrorBody },
      404: { description: 'No such key in the organization', schema: ErrorBody },
    },
    handler: async ({ deps, auth, params }) => {
      if (!(await deleteApiKeyOfOrganization(deps.db, auth.organizationId, params.keyId))) throw notFound('API key');
    },
  }),
];
