import type { Config } from '../config.ts';
import { redirectUriOf } from './outbound.ts';

/**
 * Our OAuth Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document; MCP
 * authorization 2025-11-25 and later, "Client ID Metadata Documents"). Its URL is our
 * `client_id` at every authorization server that advertises
 * `client_id_metadata_document_supported`; the server fetches it to learn our name and
 * redirect URI, so nothing is registered. The document is built from configuration only.
 */
export const CLIENT_METADATA_PATH = '/ai/mcp-oauth/client-metadata.json';

/** `PUBLIC_BASE_URL` + `/api/ai/mcp-oauth/client-metadata.json`. */
export const clientMetadataDocumentUrl = (config: Config) => `${config.publicBaseUrl}/api${CLIENT_METADATA_PATH}`;

export type ClientMetadataDocument = {
  client_id: string;
  client_name: string;
  client_uri: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
  application_type: 'web';
};

/** The draft §3: `client_id` equals the document's URL; a public client (no shared secret). */
export function clientMetadataDocument(config: Config, clientName: string): ClientMetadataDocument {
  return {
    client_id: clientMetadataDocumentUrl(config),
    client_name: clientName,
    client_uri: config.publicBaseUrl,
    redirect_uris: [redirectUriOf(config)],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'web',
  };
}
