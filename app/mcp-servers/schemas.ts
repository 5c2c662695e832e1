import { Type, type Static } from '@sinclair/typebox';
import { DateTime, LINE_CHAR, NON_BLANK_PATTERN, StrictObject, StringEnum, Uuid } from '../core/schemas.ts';
import { SERVER_STATUSES } from '../../sql/agent-mcp-servers.ts';
import { TransportType, VARIANT_TYPES } from '../mcp-catalog/schemas.ts';
import { PermissionStatus } from '../tools/schemas.ts';

/** Keys of the credentials map: credential field keys of the catalog variant, or header names. */
const CREDENTIAL_KEY = '^[A-Za-z][A-Za-z0-9_.-]{0,99}$';

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: NON_BLANK_PATTERN, errorMessage: 'must not be empty' });
const Url = Type.String({ minLength: 1, maxLength: 2048 });
const Credentials = Type.Record(
  Type.String({ pattern: CREDENTIAL_KEY }),
  // No control characters: values end up in HTTP headers (no header injection).
  Type.String({ maxLength: 4096, pattern: `^${LINE_CHAR}*$`, errorMessage: 'must be text without control characters' }),
  { maxProperties: 20 },
);

export const AddMcpServerBody = StrictObject({
  name: Name,
  url: Type.Optional(Url),
  transportType: Type.Optional(TransportType),
  availableMcpId: Type.Optional(Uuid()),
  variantType: Type.Optional(StringEnum(VARIANT_TYPES)),
  credentials: Type.Optional(Credentials),
});
export type AddMcpServerBody = Static<typeof AddMcpServerBody>;

/** PATCH: the given fields change; `credentials` replace the stored ones whole. */
export const EditMcpServerBody = StrictObject(
  { name: Type.Optional(Name), url: Type.Optional(Url), credentials: Type.Optional(Credentials) },
  { minProperties: 1, errorMessage: 'must change at least one field' },
);
export type EditMcpServerBody = Static<typeof EditMcpServerBody>;

const Annotations = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]);

export const ServerToolsDto = Type.Object({
  serverId: Uuid(),
  tools: Type.Array(
    Type.Object({
      name: Type.String(),
      title: Type.Union([Type.String(), Type.Null()]),
      description: Type.Union([Type.String(), Type.Null()]),
      inputSchema: Type.Record(Type.String(), Type.Unknown()),
      annotations: Annotations,
      permissionStatus: Type.Union([PermissionStatus, Type.Null()]),
    }),
  ),
});

export const ToolsQuery = StrictObject({
  refresh: Type.Optional(StringEnum(['true', 'false'] as const, { description: 'true: ask the server again, bypassing the cache' })),
});

export const AgentMcpServerDto = Type.Object({
  id: Uuid(),
  agentId: Uuid(),
  name: Type.String(),
  url: Type.String(),
  transportType: TransportType,
  authType: StringEnum(['none', 'static_headers', 'oauth'] as const),
  availableMcpId: Type.Union([Uuid(), Type.Null()]),
  variantType: Type.Union([StringEnum(VARIANT_TYPES), Type.Null()]),
  hasCredentials: Type.Boolean(),
  /** What talking to the server last showed (docs/mcp.md, "Connection status"). */
  status: StringEnum(SERVER_STATUSES),
  lastCheckedAt: Type.Union([DateTime(), Type.Null()]),
  createdAt: DateTime(),
});

export const AgentParams = StrictObject({ agentId: Uuid() });
export const ServerParams = StrictObject({ agentId: Uuid(), serverId: Uuid() });
