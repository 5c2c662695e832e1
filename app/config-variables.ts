import { resolve } from 'node:path';
import { z } from 'zod';
import { flag, int, isOrigin, url, variable, withoutTrailingSlash } from './env-variable.ts';
import { KNOWLEDGE_VARIABLES } from './knowledge-variables.ts';

const postgres = url(['postgres:', 'postgresql:']);
const web = url(['https:', 'http:']);

/**
 * Every environment variable, declared once: its name, how its text is parsed, its default (as
 * the text it would be set to) or what its absence means, and what it does. The tree's shape is
 * the shape of `Config` (app/config.ts infers the type from it), the table of
 * docs/configuration.md is generated from it (bin/docs/config-table.ts, checked by
 * test/core/config-table.test.ts), and the tests' config is this declaration read with a few
 * test values (test/helpers/config.ts).
 */
export const CONFIG_VARIABLES = {
  port: variable('PORT', int(0, 65535), { default: '3000', meaning: 'HTTP port' }),
  nodeEnv: variable('NODE_ENV', z.enum(['development', 'production', 'test']), {
    default: 'development',
    meaning: '`development`, `test` or `production`',
  }),
  databaseUrl: variable('DATABASE_URL', postgres, {
    absent: 'absent: embedded PGlite in `DATA_DIR`',
    meaning: '`postgres://user@host:5432/db` of a real server (required in production)',
  }),
  databaseReplicaUrl: variable('DATABASE_REPLICA_URL', postgres, {
    absent: 'absent: every read on `DATABASE_URL`',
    meaning:
      '`postgres://...` of a streaming standby of `DATABASE_URL`; usage analytics read from it while it keeps up ([architecture.md](architecture.md#read-replica))',
  }),
  replicaMaxLagMs: variable('REPLICA_MAX_LAG_MS', int(0), {
    default: '5000',
    meaning: 'reads leave the replica while it lags the primary by more than this (or is down), logged once per switch',
  }),
  redisUrl: variable('REDIS_URL', url(['redis:', 'rediss:']), {
    absent: 'absent: in-memory limiter store; a running chat turn is resumed only on its own instance',
    meaning: '`redis://host:6379` for rate-limit windows shared by instances and chat turns any instance can resume',
  }),
  shutdownGraceMs: variable('SHUTDOWN_GRACE_MS', int(0, 3_600_000), {
    default: '30000',
    meaning:
      'on SIGTERM/SIGINT: how long running requests and chat turns may go on; then turns still running are stopped and saved ([chat.md](chat.md#shutdown))',
  }),
  jwtSecret: variable('JWT_SECRET', z.string().min(32, 'must be at least 32 characters'), {
    absent: 'development: generated once into `DATA_DIR/jwt-secret`',
    meaning: 'HS256 secret for access tokens, at least 32 characters (required in production)',
  }),
  dataDir: variable(
    'DATA_DIR',
    z
      .string()
      .min(1)
      .transform((dir) => resolve(dir)),
    {
      default: '.data',
      meaning: 'embedded database and generated development secrets',
    },
  ),
  seedDemo: variable('SEED_DEMO', flag, {
    absent: '`true` on the embedded default',
    meaning: 'seed the demo fixtures at start (ignored in production)',
  }),
  logLevel: variable('LOG_LEVEL', z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), {
    default: 'info',
    meaning: 'pino level: `fatal` … `trace`, or `silent`',
  }),
  bodyLimitBytes: variable('BODY_LIMIT_BYTES', int(1), { default: '102400', meaning: 'largest JSON body; larger ones get 413' }),
  publicBaseUrl: variable(
    'PUBLIC_BASE_URL',
    web
      .refine((value) => !/[?#]/.test(value), { message: 'must be an origin with an optional path, no query' })
      // The OAuth redirect URI must be HTTPS or localhost (MCP authorization spec, "Communication Security").
      .refine((value) => new URL(value).protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(new URL(value).hostname), {
        message: 'must use https (http only for localhost)',
      })
      .transform(withoutTrailingSlash),
    {
      absent: '`http://localhost:$PORT`',
      meaning: 'public origin; OAuth redirect URIs (Google, MCP) are built on it. https, or http for localhost',
    },
  ),
  credentialsKeyring: variable('CREDENTIALS_KEY', z.string(), {
    absent: 'development: generated once into `DATA_DIR/credentials-key`',
    meaning:
      'keyring for secrets at rest (MCP credentials and tokens, outbox bodies): comma-separated `<keyId>:<base64 of 32 bytes>`, the first is current (required in production)',
  }),
  google: {
    clientId: variable('GOOGLE_CLIENT_ID', z.string().min(1), {
      absent: 'absent: Google sign-in answers 404',
      meaning: 'Google OAuth client id; both or neither with `GOOGLE_CLIENT_SECRET`',
    }),
    clientSecret: variable('GOOGLE_CLIENT_SECRET', z.string().min(1), {
      absent: 'absent: Google sign-in answers 404',
      meaning: 'Google OAuth client secret; both or neither with `GOOGLE_CLIENT_ID`',
    }),
    // Google's endpoints (https://accounts.google.com/.well-known/openid-configuration); tests use a local fake.
    authorizationUrl: variable('GOOGLE_AUTHORIZATION_URL', web, {
      default: 'https://accounts.google.com/o/oauth2/v2/auth',
      meaning: "Google's authorization endpoint",
    }),
    tokenUrl: variable('GOOGLE_TOKEN_URL', web, { default: 'https://oauth2.googleapis.com/token', meaning: "Google's token endpoint" }),
    userinfoUrl: variable('GOOGLE_USERINFO_URL', web, {
      default: 'https://openidconnect.googleapis.com/v1/userinfo',
      meaning: "Google's userinfo endpoint",
    }),
  },
  mcpOAuth: {
    clients: variable('MCP_OAUTH_CLIENTS', z.string(), {
      absent: 'none',
      meaning:
        'JSON `{ "<issuer>": { "clientId": "…", "clientSecret": "…" } }` of pre-registered OAuth clients; other issuers get our Client ID Metadata Document URL where they support it, else dynamic client registration',
    }),
    outboundTimeoutMs: variable('OUTBOUND_TIMEOUT_MS', int(1, 60_000), {
      default: '5000',
      meaning: 'deadline of every outbound request of the MCP OAuth flow (discovery, registration, tokens)',
    }),
    outboundMaxResponseBytes: variable('OUTBOUND_MAX_RESPONSE_BYTES', int(1024, 16 * 1024 * 1024), {
      default: '262144',
      meaning: 'largest response body of such a request',
    }),
    outboundMaxRedirects: variable('OUTBOUND_MAX_REDIRECTS', int(0, 10), { default: '3', meaning: 'redirects such a request follows' }),
  },
  mcpClient: {
    timeoutMs: variable('MCP_CLIENT_TIMEOUT_MS', int(100, 120_000), {
      default: '10000',
      meaning: 'MCP client (tool discovery): one deadline for a whole session (connect, initialize, every tools/list page)',
    }),
    maxResponseBytes: variable('MCP_CLIENT_MAX_RESPONSE_BYTES', int(1024, 64 * 1024 * 1024), {
      default: '4194304',
      meaning: 'MCP client: largest body of one response',
    }),
    toolsCacheTtlMs: variable('MCP_TOOLS_CACHE_TTL_MS', int(0, 24 * 3600_000), {
      default: '60000',
      meaning: "how long a server's listed tools are reused (`?refresh=true` bypasses)",
    }),
  },
  agents: {
    perOrganization: variable('AGENTS_PER_ORGANIZATION', int(1, 100_000), {
      default: '100',
      meaning:
        'most agents an organization may have; creating one more is 409 `AI.AGENT_LIMIT_REACHED`. Archived agents do not count ([agents-and-tools.md](agents-and-tools.md#archiving-an-agent))',
    }),
  },
  ai: {
    gatewayUrl: variable('AI_GATEWAY_URL', web.transform(withoutTrailingSlash), {
      default: 'https://ai-gateway.vercel.sh/v1',
      meaning: "base URL of the platform's OpenAI-compatible model provider (operator configuration, trusted like `DATABASE_URL`)",
    }),
    gatewayApiKey: variable('AI_GATEWAY_API_KEY', z.string().min(1), {
      absent: 'absent: the built-in demo model outside production',
      meaning:
        "the platform's key for `AI_GATEWAY_URL`; without it the chat route answers 503 `AI.PROVIDER_NOT_CONFIGURED` in production ([docs/chat.md](chat.md))",
    }),
    defaultModel: variable(
      'AI_DEFAULT_MODEL',
      z.string().regex(/^[\x21-\x7e]{1,200}$/, 'must be 1 to 200 printable characters without spaces'),
      {
        default: 'openai/gpt-4o-mini',
        meaning: 'model of an agent without its own `modelId`',
      },
    ),
    maxSteps: variable('AI_MAX_STEPS', int(1, 100), { default: '8', meaning: 'model calls per chat request' }),
    contextMaxTokens: variable('AI_CONTEXT_MAX_TOKENS', int(1000, 10_000_000), {
      default: '64000',
      meaning:
        'estimated tokens of the newest whole messages sent to the model each call (older ones stay stored; [docs/chat.md](chat.md))',
    }),
    providerTimeoutMs: variable('AI_PROVIDER_TIMEOUT_MS', int(100, 600_000), {
      default: '30000',
      meaning: "longest wait for the provider's next chunk (the first one included)",
    }),
    titleModel: variable(
      'AI_TITLE_MODEL',
      z.string().regex(/^[\x21-\x7e]{1,200}$/, 'must be 1 to 200 printable characters without spaces'),
      {
        absent: "absent: the conversation's agent's model",
        meaning:
          "model that titles a new conversation from its first message (one short non-streamed call beside its first turn, never waited for); on the platform key an unpriced one is never called and titles stay the first message's first line ([agents-and-tools.md](agents-and-tools.md#conversation-titles))",
      },
    ),
    judgeModel: variable(
      'AI_JUDGE_MODEL',
      z.string().regex(/^[\x21-\x7e]{1,200}$/, 'must be 1 to 200 printable characters without spaces'),
      {
        absent: "absent: the evaluated agent's model",
        meaning:
          "model that judges an evaluation case's answer against its rubric (`expect.judge`): one non-streamed call answering PASS or FAIL and a reason ([evaluations.md](evaluations.md#judging))",
      },
    ),
    approvalTtlMs: variable('AI_APPROVAL_TTL_MS', int(60_000, 30 * 86_400_000), {
      default: '86400000',
      meaning:
        "how long an approval of an end user's turn waits for the staff; then it ends `output-denied` with the reason `expired` and the model answers the end user ([chat.md](chat.md#who-answers-an-approval))",
    }),
    budgetOutputTokens: variable('AI_BUDGET_OUTPUT_TOKENS', int(1, 128_000), {
      default: '4096',
      meaning:
        "output limit of a model call whose agent sets no `maxOutputTokens`, when the organization's budget is enforced: the call is sent with it and reserves its cost ([analytics.md](analytics.md#budgets))",
    }),
    turnTimeoutMs: variable('AI_TURN_TIMEOUT_MS', int(100, 3_600_000), {
      default: '300000',
      meaning:
        'longest a chat turn may run, whatever the provider sends; past it the turn stops as by the stop route and its stream ends with an `error` chunk ([chat.md](chat.md#turns-that-survive-the-client))',
    }),
  },
  tools: {
    webSearchUrl: variable('WEB_SEARCH_URL', web.transform(withoutTrailingSlash), {
      absent: 'absent: the built-in tool `web_search` is not available',
      meaning:
        'base URL of a SearXNG-compatible search API (`GET <url>/search?q=…&format=json`) the `web_search` tool asks, through the outbound URL policy ([agents-and-tools.md](agents-and-tools.md#built-in-tools-that-run))',
    }),
    embeddingModel: variable(
      'AI_EMBEDDING_MODEL',
      z.string().regex(/^[\x21-\x7e]{1,200}$/, 'must be 1 to 200 printable characters without spaces'),
      {
        absent: 'absent: the knowledge base ranks by full-text search only',
        meaning:
          'embedding model of `AI_GATEWAY_URL` (platform key) the knowledge base embeds chunks and questions with; rankings are then fused with the full-text one ([agents-and-tools.md](agents-and-tools.md#knowledge-base))',
      },
    ),
    sendEmailPerUserPerDay: variable('SEND_EMAIL_PER_USER_PER_DAY', int(1, 50), {
      default: '20',
      meaning:
        "emails (one per recipient) the `send_email` tool may queue for one user per UTC day, a share of the organization's 50 ([agents-and-tools.md](agents-and-tools.md#email))",
    }),
  },
  knowledge: KNOWLEDGE_VARIABLES,
  notifications: {
    smtpUrl: variable('SMTP_URL', url(['smtp:', 'smtps:']), {
      absent: 'absent: development logs each email (code included) instead of sending it; elsewhere email stays queued',
      meaning: '`smtp://[user:password@]host:port` (or `smtps://`) the outbox worker sends email through',
    }),
    mailFrom: variable('MAIL_FROM', z.string().regex(/^[^\s@<>]+@[^\s@<>]+$/, 'must be an email address (local@domain)'), {
      default: 'no-reply@localhost',
      meaning: 'From address of every email; its domain names the Message-ID',
    }),
    smsProviderUrl: variable('SMS_PROVIDER_URL', web, {
      absent: 'absent: like `SMTP_URL`, for SMS',
      meaning:
        'HTTP SMS provider: `POST` `{ to, text, messageId }` with `Authorization: Bearer <key>` and `Idempotency-Key`; both or neither with `SMS_PROVIDER_KEY`',
    }),
    smsProviderKey: variable('SMS_PROVIDER_KEY', z.string().min(1), {
      absent: 'absent: like `SMTP_URL`, for SMS',
      meaning: "the SMS provider's key; both or neither with `SMS_PROVIDER_URL`",
    }),
    outboxWorker: variable(
      'OUTBOX_WORKER',
      flag.transform((value) => value === 'true'),
      { default: 'true', meaning: 'run the outbox worker inside the server; `false` when `npm run cli -- outbox deliver` runs elsewhere' },
    ),
  },
  corsOrigins: variable(
    'CORS_ORIGINS',
    z
      .string()
      .transform((value) =>
        value
          .split(',')
          .map((origin) => origin.trim())
          .filter(Boolean),
      )
      .refine((origins) => origins.every(isOrigin), { message: 'must be comma-separated origins (scheme://host[:port])' }),
    {
      absent: 'absent: no cross-origin access',
      meaning:
        'comma-separated origins (`https://app.example.com,http://localhost:5173`) allowed to call the API from a browser; credentials off; `RateLimit`, `RateLimit-Policy`, `Retry-After` exposed',
    },
  ),
  frontendUrl: variable('FRONTEND_URL', web.transform(withoutTrailingSlash), {
    absent: '`PUBLIC_BASE_URL`',
    meaning: 'where the Google and MCP OAuth callbacks send a browser, with `googleSignIn=…` / `mcpOAuth=…` and `errorCode` in the query',
  }),
  trustProxyHops: variable('TRUST_PROXY_HOPS', int(0), {
    default: '0',
    meaning:
      'how many reverse proxies in front of the service append to `X-Forwarded-For`. `0`: the socket address is the client and the header is ignored; `1`: the last entry (written by the one proxy); `n`: the n-th from the right. Entries further left come from the client and never count.',
  }),
  rateLimitIpv6Prefix: variable('RATE_LIMIT_IPV6_PREFIX', int(32, 128), {
    default: '56',
    meaning:
      'prefix length (32-128) an IPv6 client is counted by in every per-address limit: one host usually holds a whole /64, so every address inside one /56 shares a window. An IPv4-mapped address (`::ffff:192.0.2.1`) counts as its IPv4 address',
  }),
  analyticsCacheMaxBytes: variable(
    'ANALYTICS_CACHE_MAX_MB',
    int(1, 4096).transform((mb) => mb * 1024 * 1024),
    {
      default: '64',
      meaning:
        'byte budget (1-4096 MiB) of the analytics result cache; least recently used answers are evicted beyond it ([analytics.md](analytics.md#cache-and-limits))',
    },
  ),
  usageRetentionMonths: variable('USAGE_RETENTION_MONTHS', int(1, 1200), {
    absent: 'absent: keep every raw usage event',
    meaning:
      'whole UTC months (1-1200) of raw usage events kept besides the current month; older monthly partitions are dropped by the hourly maintenance, while the rollups keep the history the analytics read ([analytics.md](analytics.md#storage-partitions-and-retention-migration-0900))',
  }),
};
