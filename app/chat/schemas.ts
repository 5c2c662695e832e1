import { Type } from '@sinclair/typebox';
import { DateTime, StrictObject, StringEnum, Uuid } from '../core/schemas.ts';

/** The conversation id an AI SDK client chooses (`Chat.id`). */
export const CONVERSATION_ID_PATTERN = '^[A-Za-z0-9_-]{1,128}$';
const ConversationId = Type.String({ pattern: CONVERSATION_ID_PATTERN, errorMessage: 'must be 1 to 128 letters, digits, _ or -' });

const Part = Type.Object({ type: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: true });

/** A UI message as an AI SDK client sends it; only the last one is read (docs/chat.md, "Trust boundary"). */
const UiMessage = Type.Object(
  {
    id: Type.String({ maxLength: 200 }),
    role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant')]),
    parts: Type.Array(Part, { maxItems: 1000 }),
  },
  { additionalProperties: true },
);

/** What `DefaultChatTransport` posts. Extra top-level fields (a client's own `body`) are ignored. */
export const ChatBody = Type.Object(
  {
    id: ConversationId,
    messages: Type.Array(UiMessage, { minItems: 1, maxItems: 10_000 }),
    trigger: Type.Optional(Type.Union([Type.Literal('submit-message'), Type.Literal('regenerate-message')])),
    messageId: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: true },
);

export const ChatParams = StrictObject({ agentId: Uuid() });
export const ConversationParams = StrictObject({ agentId: Uuid(), conversationId: ConversationId });

const ConversationSummary = Type.Object({ id: Type.String(), title: Type.String(), createdAt: DateTime(), updatedAt: DateTime() });
export const ConversationList = Type.Object({ conversations: Type.Array(ConversationSummary) });
export const ConversationPageQuery = StrictObject({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, errorMessage: 'must be an integer from 1 to 200' })),
  before: Type.Optional(Uuid()),
});
export const ConversationDetail = Type.Object({
  id: Type.String(),
  hasMore: Type.Boolean({ description: 'Older messages remain: ask again with `before` the first message id' }),
  messages: Type.Array(
    Type.Object({
      id: Type.String(),
      role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]),
      parts: Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true })),
    }),
  ),
});

export const ProviderKeyBody = StrictObject({
  apiKey: Type.String({
    minLength: 8,
    maxLength: 4096,
    pattern: '^[\\x21-\\x7e]+$',
    errorMessage: 'must be 8 to 4096 printable characters',
  }),
  baseUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, format: 'uri' })),
});
export const ProviderKeyStatus = Type.Object({
  configured: Type.Boolean(),
  baseUrl: Type.Union([Type.String(), Type.Null()]),
  keyLastFour: Type.Union([Type.String(), Type.Null()]),
});

/**
 * How an end user was vouched for: `visitor` (anonymous, by a visitor token), `verified` (the
 * business's HMAC of its user id), `client` (a client account of the organization).
 */
export const EndUserKind = StringEnum(['visitor', 'verified', 'client'], {
  description: "how the end user was vouched for: an anonymous visitor, the business's verified user, or the organization's client",
});

/** `EndUserKind` of a stored end user (whose anonymous kind is `anonymous`). */
export const endUserKindOf = (kind: 'anonymous' | 'verified' | 'client') => (kind === 'anonymous' ? 'visitor' : kind);
