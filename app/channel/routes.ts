import { findChannelOfAgent, setChannelSecret, upsertChannel, type Channel } from '../../sql/channels.ts';
import { agentRoute } from '../agents/scope.ts';
import { ValidationError } from '../core/errors.ts';
import { defineRoute } from '../core/route.ts';
import { sealJson } from '../crypto/credentials.ts';
import { AI_CHANNEL_NOT_FOUND, channelNotFound } from './errors.ts';
import { exactOrigin } from './origins.ts';
import { ChannelBody, ChannelSchema, ChannelSecretSchema, DEFAULT_END_USER_MESSAGES_PER_DAY } from './schemas.ts';
import { newChannelSecret, newPublishableKey } from './secrets.ts';
import { AgentIdParams } from '../agents/schemas.ts';

const tags = ['channel'];

/** The sealing context of a channel's secret: a ciphertext copied to another agent's channel does not open. */
export const channelSecretContext = (agentId: string) => `agent:${agentId}/channel-secret`;

const dto = ({ organizationId: _organizationId, ...channel }: Channel) => channel;

/** An agent's web channel, as its organization's staff set it (docs/channel.md). */
export const channelRoutes = [
  defineRoute({
    method: 'PUT',
    path: '/ai/agents/:agentId/channel',
    summary: 'Put an agent on a website: create or change its web channel',
    description:
      'The whole channel: fields left out take their defaults. Its `publishableKey` is made with the channel and kept across ' +
      'changes. Disabling the channel ends its sessions at once (404 `AI.CHANNEL_NOT_FOUND`).',
    tags,
    ...agentRoute({ access: 'update' }),
    schemas: { params: AgentIdParams, body: ChannelBody },
    responses: { 200: { description: 'The channel', schema: ChannelSchema } },
    handler: async ({ deps, scope, body }) => {
      const origins = (body.allowedOrigins ?? []).map((origin, index) => {
        const exact = exactOrigin(origin);
        if (exact === null)
          throw new ValidationError([
            { path: ['allowedOrigins', String(index)], message: 'must be an exact origin: scheme://host[:port], no path, no wildcard' },
          ]);
        return exact;
      });
      const channel = await upsertChannel(deps.db, {
        agentId: scope.agentId,
        organizationId: scope.organizationId,
        publishableKey: newPublishableKey(),
        enabled: body.enabled,
        allowedOrigins: [...new Set(origins)],
        identity: body.identity ?? 'anonymous',
        approvals: body.approvals ?? 'staff',
        endUserMessagesPerDay: body.endUserMessagesPerDay ?? DEFAULT_END_USER_MESSAGES_PER_DAY,
        greeting: body.greeting ?? '',
        now: deps.clock(),
      });
      return dto(channel);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/channel',
    summary: "An agent's web channel",
    tags,
    ...agentRoute({ access: 'read' }),
    schemas: { params: AgentIdParams },
    errors: [AI_CHANNEL_NOT_FOUND],
    responses: { 200: { description: 'The channel', schema: ChannelSchema } },
    handler: async ({ deps, scope }) => {
      const channel = await findChannelOfAgent(deps.db, scope.agentId);
      if (!channel) throw channelNotFound();
      return dto(channel);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/ai/agents/:agentId/channel/secret',
    summary: "Make the channel's secret (shown once; replaces the old one at once)",
    description:
      "A business's own server proves who its user is with `userHash` = lowercase hex HMAC-SHA256(secret, user id). The " +
      'secret is kept sealed and is never shown again; a new one replaces it at once.',
    tags,
    ...agentRoute({ access: 'update' }),
    schemas: { params: AgentIdParams },
    status: 201,
    errors: [AI_CHANNEL_NOT_FOUND],
    responses: { 201: { description: 'The new secret', schema: ChannelSecretSchema } },
    handler: async ({ deps, scope }) => {
      const secret = newChannelSecret();
      const sealed = sealJson(deps.config.credentialsKeyring, secret, channelSecretContext(scope.agentId));
      if (!(await setChannelSecret(deps.db, scope.agentId, sealed, deps.clock()))) throw channelNotFound();
      return { secret };
    },
  }),
];
