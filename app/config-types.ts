import type { Keyring } from './crypto/credentials.ts';

/** Validated runtime configuration (read and checked by `loadConfig` in app/config.ts). Every field comes from one environment variable. */
export type Config = {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  /** Absent: the embedded PGlite database under `dataDir`. */
  databaseUrl: string | undefined;
  /** A streaming replica for reads that tolerate a second of staleness (analytics); absent: the primary. */
  databaseReplicaUrl: string | undefined;
  /** Reads leave the replica while it lags by more than this, ms. */
  replicaMaxLagMs: number;
  /** Absent: the rate limiter keeps its windows in memory. */
  redisUrl: string | undefined;
  jwtSecret: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  dataDir: string;
  /** Seed the demo fixtures at start (always on the embedded default, never in production). */
  seedDemo: boolean;
  /** Largest accepted JSON body, in bytes. */
  bodyLimitBytes: number;
  /** Origin the service is reached at from outside (`PUBLIC_BASE_URL`); OAuth redirect URIs are built on it. */
  publicBaseUrl: string;
  /** Google sign-in; absent unless GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are both set. */
  google: GoogleOAuthConfig | undefined;
  /** Keys that encrypt MCP server credentials at rest (`CREDENTIALS_KEY`; see docs/mcp.md). */
  credentialsKeyring: Keyring;
  /** MCP OAuth (docs/mcp-oauth.md): `MCP_OAUTH_CLIENTS`, `OUTBOUND_*`. */
  mcpOAuth: McpOAuthConfig;
  /** This service's MCP client (tool discovery, docs/mcp.md): `MCP_CLIENT_*`. */
  mcpClient: McpClientConfig;
  /** The chat stream's model provider (docs/chat.md): `AI_*`. */
  ai: AiConfig;
  /** Email and SMS delivery (docs/identity.md): `SMTP_URL`, `MAIL_FROM`, `SMS_PROVIDER_*`, `OUTBOX_WORKER`. */
  notifications: NotificationsConfig;
  /** Origins allowed to call the API from a browser (`CORS_ORIGINS`); empty: no cross-origin access. */
  corsOrigins: string[];
  /**
   * Where browsers land after an OAuth redirect (`FRONTEND_URL`, default `PUBLIC_BASE_URL`): the
   * Google and MCP OAuth callbacks redirect there with a result indicator.
   */
  frontendUrl: string;
  /**
   * `TRUST_PROXY_HOPS`: how many reverse proxies stand in front of the service, each appending
   * the address it received the request from to `X-Forwarded-For`. Default 0: the socket address
   * is the client and the header is ignored; 1: the last entry; n: the n-th entry from the right.
   * Entries further left are written by the client and never believed.
   */
  trustProxyHops: number;
  /**
   * `RATE_LIMIT_IPV6_PREFIX` (32-128, default 56): the prefix length an IPv6 client is counted by
   * in every per-address limit (and in a `userId` limit without a user); an IPv4-mapped IPv6
   * address counts as its IPv4 address. One host holds a whole /64, so the full address limits nothing.
   */
  rateLimitIpv6Prefix: number;
  /** `ANALYTICS_CACHE_MAX_MB` (1-4096, default 64), in bytes: the analytics cache's budget (docs/analytics.md). */
  analyticsCacheMaxBytes: number;
  /**
   * `USAGE_RETENTION_MONTHS` (1-1200; absent: keep everything): raw usage events of older UTC
   * months are dropped, whole monthly partitions at a time; the rollups keep their history
   * (docs/analytics.md, "Storage, partitions and retention").
   */
  usageRetentionMonths?: number | undefined;
};

export type NotificationsConfig = {
  /** `smtp://[user:password@]host:port`; absent: email is logged in development, left queued elsewhere. */
  smtpUrl: string | undefined;
  /** From address of every email. Default `no-reply@localhost`. */
  mailFrom: string;
  /** The HTTP SMS provider's endpoint and key (both or neither). */
  smsProviderUrl: string | undefined;
  smsProviderKey: string | undefined;
  /** Run the outbox worker inside the server process. Default true; `OUTBOX_WORKER=false` when a separate worker runs. */
  outboxWorker: boolean;
};

export type McpClientConfig = {
  /** One deadline for a whole MCP session (connect, initialize, every tools/list page), in ms. Default 10000. */
  timeoutMs: number;
  /** Largest body of one MCP response, in bytes. Default 4 MiB. */
  maxResponseBytes: number;
  /** How long a server's listed tools are reused, in ms (`?refresh=true` bypasses). Default 60000. */
  toolsCacheTtlMs: number;
};

export type AiConfig = {
  /** OpenAI-compatible base URL of the platform's provider (`AI_GATEWAY_URL`), trusted like DATABASE_URL. */
  gatewayUrl: string;
  /** The platform's key (`AI_GATEWAY_API_KEY`); absent: the demo model outside production, 503 in production. */
  gatewayApiKey: string | undefined;
  /** The model of an agent without its own `modelId` (`AI_DEFAULT_MODEL`). */
  defaultModel: string;
  /** Model calls per chat request (`AI_MAX_STEPS`). Default 8. */
  maxSteps: number;
  /** Longest wait for the provider's next chunk (first one included), in ms (`AI_PROVIDER_TIMEOUT_MS`). Default 30000. */
  providerTimeoutMs: number;
};

/** A pre-registered OAuth client of one authorization server (issuer). */
export type ConfiguredOAuthClient = { clientId: string; clientSecret?: string };

export type McpOAuthConfig = {
  /** Pre-registered clients by issuer; issuers not listed use dynamic client registration. */
  clients: Record<string, ConfiguredOAuthClient>;
  /** Bounds of every outbound request (discovery, registration, token). */
  outboundTimeoutMs: number;
  outboundMaxResponseBytes: number;
  outboundMaxRedirects: number;
};

export type GoogleOAuthConfig = {
  clientId: string;
  clientSecret: string;
  authorizationUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
};
