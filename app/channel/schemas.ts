import { Type } from '@sinclair/typebox';
import { DateTime, EmailAddress, NUL_FREE_PATTERN, READABLE_LINE_PATTERN, StrictObject, StringEnum, Uuid } from '../core/schemas.ts';
import { EndUserKind } from '../chat/schemas.ts';

/** Most origins a channel allows. */
export const MAX_ALLOWED_ORIGINS = 20;
/** New user messages an end user may send a UTC day, by default. */
export const DEFAULT_END_USER_MESSAGES_PER_DAY = 50;

/** `PUT .../channel`: the whole channel; fields left out take their defaults. */
export const ChannelBody = StrictObject({
  enabled: Type.Boolean(),
  allowedOrigins: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
      maxItems: MAX_ALLOWED_ORIGINS,
      description:
        'Exact origins (`https://shop.example.com`, `http://localhost:8080`): scheme, host, optional port; no path, no wildcard.',
    }),
  ),
  identity: Type.Optional(StringEnum(['anonymous', 'verified'], { default: 'anonymous' })),
  approvals: Type.Optional(StringEnum(['staff', 'end_user'], { default: 'staff' })),
  endUserMessagesPerDay: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 10_000,
      default: DEFAULT_END_USER_MESSAGES_PER_DAY,
      errorMessage: 'must be an integer from 1 to 10000',
    }),
  ),
  greeting: Type.Optional(Type.String({ maxLength: 500, pattern: NUL_FREE_PATTERN, errorMessage: 'must be at most 500 characters' })),
});

export const ChannelSchema = Type.Object({
  agentId: Uuid(),
  enabled: Type.Boolean(),
  publishableKey: Type.String({ description: '`agp_` + 32 base62 characters; public: it goes into web pages' }),
  allowedOrigins: Type.Array(Type.String()),
  identity: StringEnum(['anonymous', 'verified']),
  approvals: StringEnum(['staff', 'end_user']),
  endUserMessagesPerDay: Type.Integer(),
  greeting: Type.String(),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});

export const ChannelSecretSchema = Type.Object({
  secret: Type.String({
    description: '`ags_` + 40 base62 characters, shown once; `userHash` = lowercase hex HMAC-SHA256(secret, user id)',
  }),
});

const EndUserId = Type.String({ minLength: 1, maxLength: 200, pattern: NUL_FREE_PATTERN, errorMessage: 'must be 1 to 200 characters' });

/** `POST /api/public/sessions`. */
export const SessionBody = StrictObject({
  publishableKey: Type.String({ minLength: 1, maxLength: 100 }),
  visitorToken: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  user: Type.Optional(
    StrictObject({
      id: EndUserId,
      hash: Type.String({ minLength: 1, maxLength: 128 }),
      name: Type.Optional(
        Type.String({
          maxLength: 200,
          pattern: READABLE_LINE_PATTERN,
          errorMessage: 'must be one line of at most 200 characters, without control characters',
          description: 'shown to staff as given by the end user',
        }),
      ),
      email: Type.Optional(EmailAddress()),
    }),
  ),
});

export const SessionSchema = Type.Object({
  sessionToken: Type.String(),
  expiresIn: Type.Integer({ description: 'seconds' }),
  endUser: Type.Object({ id: Uuid(), verified: Type.Boolean(), kind: EndUserKind }),
  visitorToken: Type.Optional(Type.String({ description: 'an anonymous end user only: send it back to be the same end user (90 days)' })),
  agent: Type.Object({ name: Type.String(), greeting: Type.String() }),
  approvals: Type.Union([Type.Literal('staff'), Type.Literal('end_user')], {
    description: "who answers this end user's tool approvals: the organization's staff, or the end user in the stream",
  }),
  brand: Type.Object(
    { productName: Type.String(), primaryColor: Type.String() },
    { description: "the brand of the agent's agency (its product name and color), else the product's own" },
  ),
});
