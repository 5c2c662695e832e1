import { uuidv7 } from 'uuidv7';
import { findActiveAvailableMcp } from '../../sql/available-mcps.ts';
import { insertAgentMcpServer } from '../../sql/agent-mcp-servers.ts';
import type { AppDeps } from '../core/deps.ts';
import { notFound, ValidationError } from '../core/errors.ts';
import { sealJson } from '../crypto/credentials.ts';
import type { Variant, VariantType } from '../mcp-catalog/schemas.ts';
import { checkUrlTextToSave, urlPolicyFor, UrlRefusedError } from '../net/url-policy.ts';
import { credentialsForVariant, customCredentials, type StoredCredentials } from './credentials.ts';
import type { AddMcpServerBody } from './schemas.ts';

/**
 * Binds a ciphertext to its organization and server: a sealed value copied to another row does not open.
 * The `agency:` prefix is part of what every stored ciphertext was sealed with, so it stays as it is.
 */
export const credentialsContext = (organizationId: string, serverId: string) => `agency:${organizationId}/server:${serverId}`;

const AUTH_TYPE: Record<VariantType, 'none' | 'static_headers' | 'oauth'> = {
  free: 'none',
  apikey: 'static_headers',
  oauth: 'oauth',
};

type Plan = {
  url: string;
  transportType: 'http' | 'sse';
  authType: 'none' | 'static_headers' | 'oauth';
  availableMcpId: string | null;
  variantType: VariantType | null;
  credentials: StoredCredentials | null;
};

/**
 * The catalog flow of the service interface ("Adding a catalog entry to an agent"):
 * 1. load the active entry (404 when unknown or soft-deleted);
 * 2. find the variant of `variantType` (400 at `variantType` when the entry does not offer it);
 * 3. check the credentials (400 for unknown keys, 422 with `missingFields`);
 * 4. map the variant type to the auth type; 5. the caller saves with the reference set.
 * `url` and `transportType` default to the variant's and must equal them when given, so a
 * credential meant for a vendor is only ever sent to that vendor's catalogued URL.
 */
async function planFromCatalog(deps: AppDeps, body: AddMcpServerBody & { availableMcpId: string }): Promise<Plan> {
  if (body.variantType === undefined) throw new ValidationError([{ path: ['variantType'], message: 'Required' }]);
  const entry = await findActiveAvailableMcp(deps.db, body.availableMcpId);
  if (!entry) throw notFound('Catalog entry');
  const variant = (entry.variants as Variant[]).find((v) => v.type === body.variantType);
  if (!variant) {
    const offered = (entry.variants as Variant[]).map((v) => v.type).join(', ');
    throw new ValidationError([{ path: ['variantType'], message: `is not offered by this catalog entry (offers: ${offered})` }]);
  }
  const mismatches = [
    body.url !== undefined && body.url !== variant.url && { path: ['url'], message: `must be the catalog variant's URL ${variant.url}` },
    body.transportType !== undefined &&
      body.transportType !== variant.transportType && { path: ['transportType'], message: `must be ${variant.transportType}` },
  ].filter((issue) => issue !== false);
  if (mismatches.length) throw new ValidationError(mismatches);
  return {
    url: variant.url,
    transportType: variant.transportType,
    authType: AUTH_TYPE[variant.type],
    availableMcpId: entry.id,
    variantType: variant.type,
    credentials: credentialsForVariant(variant, body.credentials ?? {}),
  };
}

function planCustom(body: AddMcpServerBody): Plan {
  const missing = [
    body.url === undefined && { path: ['url'], message: 'Required' },
    body.transportType === undefined && { path: ['transportType'], message: 'Required' },
    body.variantType !== undefined && { path: ['variantType'], message: 'is allowed only with availableMcpId' },
  ].filter((issue) => issue !== false);
  if (missing.length) throw new ValidationError(missing);
  const credentials = customCredentials(body.credentials ?? {});
  return {
    url: body.url!,
    transportType: body.transportType!,
    authType: credentials ? 'static_headers' : 'none',
    availableMcpId: null,
    variantType: null,
    credentials,
  };
}

/**
 * The save-time URL policy: what the URL text alone shows, with no DNS lookup (docs/mcp.md, URL
 * policy). A refusal is a 400 at `url`. A host name is judged by the addresses it resolves to at
 * every connection (the guarded fetch and its connect-time guard), so saving answers alike for a
 * name that does not resolve and for one that resolves to a private address: no DNS oracle.
 */
export function checkServerUrlToSave(deps: AppDeps, url: string): void {
  try {
    checkUrlTextToSave(url, urlPolicyFor(deps.config));
  } catch (error) {
    if (error instanceof UrlRefusedError) throw new ValidationError([{ path: ['url'], message: error.message }]);
    throw error;
  }
}

/** POST /ai/agents/:agentId/mcp-servers (the route's scope found the agent in the agency): checks, encrypts the credentials, saves. */
export async function addMcpServer(deps: AppDeps, organizationId: string, agentId: string, body: AddMcpServerBody) {
  const plan =
    body.availableMcpId !== undefined ? await planFromCatalog(deps, { ...body, availableMcpId: body.availableMcpId }) : planCustom(body);
  checkServerUrlToSave(deps, plan.url);
  const id = uuidv7();
  return insertAgentMcpServer(deps.db, {
    id,
    organizationId,
    agentId,
    name: body.name.trim(),
    url: plan.url,
    transportType: plan.transportType,
    authType: plan.authType,
    availableMcpId: plan.availableMcpId,
    variantType: plan.variantType,
    credentials: plan.credentials
      ? sealJson(deps.config.credentialsKeyring, plan.credentials, credentialsContext(organizationId, id))
      : null,
  });
}
