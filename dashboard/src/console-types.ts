/** Answers of the API the console's pages read (the fields they use). */

export type Agent = {
  id: string;
  name: string;
  description: string;
  modelId: string | null;
  instructions: string;
  temperature: number | null;
  maxOutputTokens: number | null;
};
/** `GET /api/ai/models`: the priced models, and whether the organization may name any (its own key). */
export type ModelCatalog = {
  models: { modelId: string; inputUsdPerMTok: number; outputUsdPerMTok: number; cacheReadUsdPerMTok: number }[];
  anyModel: boolean;
};

export type PermissionStatus = 'always_allow' | 'needs_approval' | 'blocked';
export type ToolEntry = { toolName: string; permissionStatus: PermissionStatus; providerKey: string };
export type CatalogTool = { toolName: string; providerKey: string; description: string };
export type Override = { toolName: string; createdAt: string };

export type ServerStatus = 'connected' | 'needs_authorization' | 'reauthorization_required' | 'unreachable' | 'unknown';
export type McpServer = {
  id: string;
  name: string;
  url: string;
  authType: 'none' | 'static_headers' | 'oauth';
  availableMcpId: string | null;
  variantType: 'free' | 'apikey' | 'oauth' | null;
  hasCredentials: boolean;
  status: ServerStatus;
  lastCheckedAt: string | null;
  createdAt: string;
};
export type ServerTool = { name: string; title: string | null; description: string | null; permissionStatus: PermissionStatus | null };

export type CredentialField = {
  key: string;
  label: string;
  type: 'text' | 'password' | 'header';
  required: boolean;
  placeholder?: string;
  helpText?: string;
  default?: string;
};
export type CatalogVariant = {
  type: 'free' | 'apikey' | 'oauth';
  url: string;
  transportType: 'http' | 'sse';
  credentialSchema: { type: string; fields: CredentialField[] };
};
export type CatalogEntry = { id: string; name: string; description?: string; variants: CatalogVariant[] };
