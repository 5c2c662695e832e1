import { Type } from '@sinclair/typebox';
import { defineRoute } from '../core/route.ts';
import { StrictObject } from '../core/schemas.ts';
import { transportFor } from './transport.ts';

const SmsTestBody = StrictObject({
  to: Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', errorMessage: 'must be an E.164 phone number (+ and 7 to 15 digits)' }),
  message: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
});

export const notificationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/notifications/sms/test',
    rateLimit: { limit: 3, windowMs: '5m', identifierType: 'ip', source: 'interface' },
    summary: 'Send a test SMS through the notification transport (development only)',
    description: 'Mounted only when NODE_ENV=development; elsewhere the path answers 404.',
    tags: ['notifications'],
    auth: 'public',
    schemas: { body: SmsTestBody },
    status: 202,
    enabled: (deps) => deps.config.nodeEnv === 'development',
    responses: {
      202: {
        description: 'Handed to the transport',
        schema: Type.Object({ messageId: Type.String(), channel: Type.Literal('sms') }),
      },
    },
    handler: async ({ deps, body }) => {
      const { messageId } = await transportFor(deps).send(deps.db, {
        channel: 'sms',
        to: body.to,
        template: 'sms-test',
        text: body.message ?? 'Test message from the agents backend.',
      });
      return { messageId, channel: 'sms' as const };
    },
  }),
];
