import { Type } from '@sinclair/typebox';
import { defineRoute } from '../core/route.ts';
import { CLIENT_NAME } from './client-registration.ts';
import { CLIENT_METADATA_PATH, clientMetadataDocument } from './client-metadata.ts';

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
    responses: {
      200: {
        description: 'The client metadata',
        schema: Type.Object({
          client_id: Type.String(),
          client_name: Type.String(),
          client_uri: Type.String(),
          redirect_uris: Type.Array(Type.String()),
          grant_types: Type.Array(Type.String()),
          response_types: Type.Array(Type.String()),
          token_endpoint_auth_method: Type.Literal('none'),
          application_type: Type.Literal('web'),
        }),
      },
    },
    handler: ({ deps, ctx }) => {
      // Authorization servers may cache it (draft §4.3: per HTTP caching rules).
      ctx.set('cache-control', 'public, max-age=3600');
      return clientMetadataDocument(deps.config, CLIENT_NAME);
    },
  }),
];
