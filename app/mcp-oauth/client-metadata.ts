import { Type } from '@sinclair/typebox';
import type { Config } from '../config.ts';
import { defineRoute } from '../core/route.ts';
import { redirectUriOf } from './outbound.ts';

/**
 * Our OAuth Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document; MCP
 * authorization 2025-11-25 and later). Its URL is our `client_id` at every authorization server
 * that advertises `client_id_metadata_document_supported`, which fetches it to learn our name and
 * redirect URI, so nothing is registered. Built from configuration only; a public client (§3).
 */
export const CLIENT_METADATA_PATH = '/ai/mcp-oauth/client-metadata.json';

/** `PUBLIC_BASE_URL` + `/api/ai/mcp-oauth/client-metadata.json`. */
export const clientMetadataDocumentUrl = (config: Config) => `${config.publicBaseUrl}/api${CLIENT_METADATA_PATH}`;

const ClientMetadataDocument = Type.Object({
  client_id: Type.String(),
  client_name: Type.String(),
  client_uri: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  grant_types: Type.Array(Type.String()),
  response_types: Type.Array(Type.String()),
  token_endpoint_auth_method: Type.Literal('none'),
  application_type: Type.Literal('web'),
});

export function clientMetadataDocument(config: Config) {
  return {
    client_id: clientMetadataDocumentUrl(config),
    client_name: 'Agents backend',
    client_uri: config.publicBaseUrl,
    redirect_uris: [redirectUriOf(config)],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none' as const,
    application_type: 'web' as const,
  };
}

export const clientMetadataRoutes = [
  defineRoute({
    method: 'GET',
    path: CLIENT_METADATA_PATH,
    summary: 'Our OAuth Client ID Metadata Document (its URL is our client_id)',
    description:
      'Fetched by authorization servers that advertise `client_id_metadata_document_supported` ' +
      '(docs/mcp-oauth.md, "Client identity"). Public; built from PUBLIC_BASE_URL.',
    tags: ['mcp-oauth'],
    auth: 'public',
    responses: { 200: { description: 'The client metadata', schema: ClientMetadataDocument } },
    handler: ({ deps, ctx }) => {
      // Authorization servers may cache it (draft §4.3: per HTTP caching rules).
      ctx.set('cache-control', 'public, max-age=3600');
      return clientMetadataDocument(deps.config);
    },
  }),
];
