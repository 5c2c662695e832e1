import { Type } from '@sinclair/typebox';
import { defineRoute } from '../core/route.ts';
import { agentRoute } from '../agents/scope.ts';
import { DateTime, ErrorBody, StrictObject, Uuid } from '../core/schemas.ts';
import { answerCallback, completeHandoff } from './callback.ts';
import { initiateAuthorization } from './initiate.ts';
import { CLIENT_METADATA_PATH, clientMetadataDocument } from './provider.ts';
import {
  DISCOVERY_ERRORS,
  MCP_OAUTH_HANDOFF_INVALID,
  MCP_OAUTH_INVALID_STATE,
  MCP_OAUTH_NOT_OAUTH_SERVER,
  REDEEM_ERRORS,
} from './errors.ts';

const AGENT_UPDATE = { subject: 'ai.agent', action: 'update' } as const;
const AGENT_UPDATER = { auth: 'jwt', principal: 'user', policy: AGENT_UPDATE } as const;

const Connected = Type.Object({
  agentId: Type.String(),
  serverId: Type.String(),
  connected: Type.Literal(true),
  scope: Type.Union([Type.String(), Type.Null()]),
  expiresAt: Type.Union([DateTime(), Type.Null()]),
});

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

export const mcpOAuthRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ai/agents/:agentId/mcp-servers/:serverId/oauth/initiate',
    // Resource and authorization-server metadata discovery, dynamic client registration.
    rateLimit: { limit: 10, windowMs: '1m', identifierType: 'userId', policyName: 'mcp-oauth-initiate', source: 'project' },
    summary: 'Start connecting an OAuth MCP server: answers the URL to send the browser to',
    description:
      'Discovers the authorization server (RFC 9728, RFC 8414), requires PKCE S256, obtains a client ' +
      '(configured or RFC 7591) and records a single-use state bound to the caller, valid 10 minutes. ' +
      'browserKey is for the front-end that called: keep it to complete the browser landing (POST /ai/mcp-oauth/complete).',
    tags: ['mcp-oauth'],
    ...AGENT_UPDATER,
    ...agentRoute({ access: 'any' }),
    schemas: { params: StrictObject({ agentId: Uuid(), serverId: Uuid() }) },
    responses: {
      200: {
        description: 'Authorization URL, state, the browser key to keep, and their expiry',
        schema: Type.Object({ authorizationUrl: Type.String(), state: Type.String(), browserKey: Type.String(), expiresAt: DateTime() }),
      },
      404: { description: 'No MCP server with this id on the agent', schema: ErrorBody },
    },
    // The 502s and the 504: the MCP or authorization server failed a requirement (errorCode says which).
    errors: [MCP_OAUTH_NOT_OAUTH_SERVER, ...DISCOVERY_ERRORS],
    handler: ({ deps, scope, params }) => initiateAuthorization(deps, scope, params),
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/mcp-oauth/callback',
    // Token exchange with the authorization server (bearer callers). Plain browsers land here
    // without a token (ADR 0082), so the window is the address's; twice the Google callback's.
    rateLimit: { limit: 20, windowMs: '1m', identifierType: 'ip', policyName: 'mcp-oauth-callback', source: 'project' },
    readOnly: false,
    summary: 'Complete the OAuth connection with the authorization response',
    description:
      'The redirect URI. A plain browser (no Authorization header) exchanges nothing: the response is kept for ' +
      'the front-end that started the flow and the browser is answered 303 to FRONTEND_URL with ' +
      'mcpOAuth=handoff&handoff&agentId&serverId (complete it at POST /ai/mcp-oauth/complete) or ' +
      'mcpOAuth=error&errorCode. With the bearer token of the user who started the flow (policy update on ' +
      'ai.agent) the flow completes at once and the answer is JSON. Stores the tokens encrypted (docs/mcp-oauth.md).',
    tags: ['mcp-oauth'],
    auth: 'public',
    schemas: {
      // Authorization servers may add parameters of their own (e.g. session_state): allowed.
      query: Type.Object({
        state: Type.String({ minLength: 1, maxLength: 512 }),
        code: Type.Optional(Type.String({ maxLength: 4096 })),
        iss: Type.Optional(Type.String({ maxLength: 2048 })),
        error: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
        error_description: Type.Optional(Type.String({ maxLength: 2048 })),
        error_uri: Type.Optional(Type.String({ maxLength: 2048 })),
      }),
    },
    responses: {
      303: { description: 'Browser landing: redirect to FRONTEND_URL with mcpOAuth=handoff&handoff or mcpOAuth=error&errorCode' },
      200: { description: 'Connected (bearer-token caller)', schema: Connected },
      401: { description: 'Bearer-token caller: the token is invalid', schema: ErrorBody },
      403: { description: 'Bearer-token caller: not a user with update on ai.agent', schema: ErrorBody },
      404: { description: 'The MCP server was deleted meanwhile', schema: ErrorBody },
    },
    // Bearer-token callers only: a browser landing answers every error as mcpOAuth=error&errorCode.
    errors: [MCP_OAUTH_INVALID_STATE, ...REDEEM_ERRORS],
    handler: ({ deps, ctx, query }) => answerCallback(deps, ctx, query),
  }),
  defineRoute({
    method: 'POST',
    path: '/ai/mcp-oauth/complete',
    // Token exchange with the authorization server; a front-end calls it once per landing.
    rateLimit: { limit: 20, windowMs: '1m', identifierType: 'userId', policyName: 'mcp-oauth-complete', source: 'project' },
    summary: 'Complete a browser landing of the OAuth connection (the front-end that started it)',
    description:
      'handoff is the parameter the callback put on the FRONTEND_URL redirect; browserKey is the value initiate ' +
      'answered to the front-end that started the flow. Only the user who started it, with that key, completes it: ' +
      'the code is exchanged and the tokens stored encrypted. Single use, within 2 minutes of the landing.',
    tags: ['mcp-oauth'],
    ...AGENT_UPDATER,
    schemas: {
      body: StrictObject({
        handoff: Type.String({ minLength: 1, maxLength: 128 }),
        browserKey: Type.String({ minLength: 1, maxLength: 128 }),
      }),
    },
    responses: {
      200: { description: 'Connected', schema: Connected },
      404: { description: 'The MCP server was deleted meanwhile', schema: ErrorBody },
    },
    // MCP_OAUTH.HANDOFF_INVALID: unknown, used, expired, another user's, or another browser's key.
    errors: [MCP_OAUTH_HANDOFF_INVALID, ...REDEEM_ERRORS],
    handler: ({ deps, auth, body }) => completeHandoff(deps, auth, body),
  }),
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
