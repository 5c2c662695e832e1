import { Type } from '@sinclair/typebox';
import { OFFERED_STATUSES, PERMISSION_STATUSES, ToolPermission } from '../../sql/tool-permissions.ts';
import { DateTime, fromRow, NUL_FREE_PATTERN, StrictObject, StringEnum, Uuid } from '../core/schemas.ts';

/** Longest tool set one request may carry (the interface gives no maximum; this bounds the work). */
export const MAX_TOOLS_PER_AGENT = 500;

/** 1 to 200 characters; NUL is refused because PostgreSQL text cannot hold it. */
export const ToolName = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: NUL_FREE_PATTERN,
  errorMessage: 'must be 1 to 200 characters without NUL',
});

/** A tool's permission level in a route schema: the levels of `PERMISSION_STATUSES`, the single list. */
export const PermissionStatus = StringEnum(PERMISSION_STATUSES);

export const ToolPermissionInput = StrictObject({
  toolName: ToolName,
  permissionStatus: PermissionStatus,
  providerKey: Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: NUL_FREE_PATTERN,
    errorMessage: 'must be 1 to 200 characters without NUL',
  }),
});

export const ReplaceToolsBody = StrictObject({
  tools: Type.Array(ToolPermissionInput, { minItems: 0, maxItems: MAX_TOOLS_PER_AGENT }),
});

export const ReplaceToolsResult = Type.Object({ agentId: Uuid(), toolCount: Type.Integer({ minimum: 0 }) });

export const ToolSetSchema = Type.Object({
  agentId: Uuid(),
  tools: Type.Array(fromRow(ToolPermission)),
});

export const CatalogSchema = Type.Array(
  Type.Object({
    toolName: Type.String(),
    providerKey: Type.String(),
    description: Type.String(),
    suggestedPermission: PermissionStatus,
    available: Type.Boolean(),
    unavailableReason: Type.Union([Type.String(), Type.Null()]),
  }),
);

export const EffectiveToolsSchema = Type.Object({
  agentId: Uuid(),
  tools: Type.Array(
    Type.Object({
      toolName: Type.String(),
      providerKey: Type.String(),
      permissionStatus: StringEnum(OFFERED_STATUSES),
      requiresApproval: Type.Boolean(),
      description: Type.Union([Type.String(), Type.Null()]),
      available: Type.Boolean(),
    }),
  ),
});

export const OverrideBody = StrictObject({ toolName: ToolName });
export const OverrideSchema = Type.Object({ toolName: Type.String(), createdAt: DateTime() });
export const OverrideListSchema = Type.Object({ overrides: Type.Array(OverrideSchema) });
export const OverrideParams = StrictObject({ agentId: Uuid(), toolName: Type.String() });
