import type { FakeOAuth } from './fake-servers.ts';

/**
 * OAuth Client ID Metadata Document draft §4: the client_id is an URL; the AS fetches it and
 * checks that the document names itself and lists the redirect URI of the request.
 */
export async function clientMetadataAccepts(query: URLSearchParams, fake: FakeOAuth): Promise<boolean> {
  const clientId = query.get('client_id') ?? '';
  if (!/^https?:\/\//.test(clientId)) return false;
  const response = await fetch(clientId, { headers: { accept: 'application/json' } });
  if (response.status !== 200) return false;
  const document = (await response.json()) as Record<string, unknown>;
  fake.clientMetadataDocuments.push(document);
  const redirectUris = document.redirect_uris;
  return document.client_id === clientId && Array.isArray(redirectUris) && redirectUris.includes(query.get('redirect_uri'));
}
