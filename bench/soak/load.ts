import { performance } from 'node:perf_hooks';
import { request, type Agent } from 'undici';
import { API_KEY_SCOPES } from '../../app/core/route.ts';

/** One request as the client saw it; `status` 0 is no answer (connection error or 10 s timeout). */
export type Sample = { kind: string; endMs: number; latencyMs: number; status: number };

export type Tokens = { owner: string; otherOwner: string };

export type LoadContext = {
  baseUrl: string;
  dispatcher: Agent;
  /** Replaced by the bench before they expire (access tokens live 15 minutes). */
  tokens: Tokens;
  /** Agents of the demo agency whose tool sets the workers replace: one per worker. */
  workerAgents: string[];
  /** The MCP server (on the local SDK peer) whose tools are listed. */
  mcp: { agentId: string; serverId: string };
  record: (sample: Sample) => void;
};

type Step = { kind: string; method: 'GET' | 'POST' | 'PUT' | 'DELETE'; path: string; body?: unknown; token?: keyof Tokens; ip?: string };

/** Statuses a kind may answer without counting as an error (429 only on the limited routes). */
export const EXPECTED: Record<string, number[]> = {
  'check-email': [200, 429],
  refresh: [401, 429],
  'agents-list': [200],
  'agent-read': [200],
  me: [200],
  catalog: [200],
  'tool-catalog': [200],
  'agent-tools': [200],
  'effective-tools': [200],
  organization: [200],
  analytics: [200, 429],
  'put-tools': [200],
  // Agent creation is limited per user (the route's 20 a minute): most attempts are 429.
  'create-agent': [201, 429],
  'archive-agent': [204],
  'create-key': [201],
  'delete-key': [204],
  'mcp-tools': [200, 429],
};

const ANALYTICS = ['daily', 'summary', 'time-series', 'by-agent', 'cache-savings', 'model-efficiency'];
const DAY_MS = 86_400_000;
const TODAY = Math.floor(Date.now() / DAY_MS) * DAY_MS;
/** Windows from a bounded set (60 starts x 6 endpoints), so the 300 s answer cache sees hits and misses without growing unbounded. */
const analyticsPath = (i: number) => {
  const from = new Date(TODAY - (7 + (i % 60)) * DAY_MS).toISOString();
  return `/api/ai/org-usage/${ANALYTICS[i % ANALYTICS.length]}?from=${from}&to=${new Date(TODAY).toISOString()}`;
};
/** Eight client addresses share the limited identity routes, so their windows fill and 429s occur. */
const limitedIp = (i: number) => `198.18.7.${(i % 8) + 1}`;

const TOOL_SETS = [
  [{ toolName: 'web_search', permissionStatus: 'always_allow', providerKey: 'web' }],
  [{ toolName: 'send_email', permissionStatus: 'needs_approval', providerKey: 'email' }],
  [],
];

type StepOf = (context: LoadContext, worker: number, i: number) => Step;
const read =
  (kind: string, path: (agentId: string) => string): StepOf =>
  (context, worker) => ({ kind, method: 'GET', path: path(context.workerAgents[worker]!), token: 'owner' });

/**
 * The mix, one entry per round-robin slot: 8 reads, 2 analytics (limited to 600 a minute per
 * user), 2 limited identity routes, 2 writes (the last alternating agent creation with an API
 * key's create and delete, see runSlot).
 */
const MIX: StepOf[] = [
  read('agents-list', () => '/api/ai/agents'),
  read('agent-read', (agentId) => `/api/ai/agents/${agentId}`),
  read('me', () => '/api/identity/me'),
  read('catalog', () => '/api/available-mcps'),
  read('tool-catalog', () => '/api/ai/tools/catalog'),
  read('agent-tools', (agentId) => `/api/ai/agents/${agentId}/tools`),
  read('effective-tools', (agentId) => `/api/ai/agents/${agentId}/tools/effective`),
  read('organization', () => '/api/organization/my'),
  (_, worker, i) => ({ kind: 'analytics', method: 'GET', path: analyticsPath(i * 31 + worker), token: 'owner' }),
  (_, worker, i) => ({ kind: 'analytics', method: 'GET', path: analyticsPath(i * 17 + worker), token: 'owner' }),
  (_, __, i) => ({
    kind: 'check-email',
    method: 'POST',
    path: '/api/identity/auth/user/check-email',
    body: { email: `soak-${i}@bench.test` },
    ip: limitedIp(i),
  }),
  (_, __, i) => ({
    kind: 'refresh',
    method: 'POST',
    path: '/api/identity/auth/refresh',
    body: { refreshToken: `bogus-${i}` },
    ip: limitedIp(i + 3),
  }),
  (context, worker, i) => ({
    kind: 'put-tools',
    method: 'PUT',
    path: `/api/ai/agents/${context.workerAgents[worker]!}/tools`,
    body: { tools: TOOL_SETS[i % TOOL_SETS.length] },
    token: 'owner',
  }),
  // Agents are created in the other agency, so the demo agency's list (read above) keeps its size.
  (_, worker, i) => ({
    kind: 'create-agent',
    method: 'POST',
    path: '/api/ai/agents',
    body: { name: `soak ${worker}-${i}` },
    token: 'otherOwner',
  }),
];

/** Sends one step; returns the answer's status and JSON body (or status 0). */
async function send(context: LoadContext, step: Step): Promise<{ status: number; json: { id?: string } }> {
  const headers: Record<string, string> = {};
  if (step.body !== undefined) headers['content-type'] = 'application/json';
  if (step.token) headers.authorization = `Bearer ${context.tokens[step.token]}`;
  if (step.ip) headers['x-forwarded-for'] = step.ip;
  const started = performance.now();
  let status = 0;
  let json: { id?: string } = {};
  try {
    const response = await request(`${context.baseUrl}${step.path}`, {
      method: step.method,
      headers,
      body: step.body === undefined ? undefined : JSON.stringify(step.body),
      dispatcher: context.dispatcher,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    status = response.statusCode;
    const text = await response.body.text();
    if (text.startsWith('{')) json = JSON.parse(text) as typeof json;
  } catch {
    status = 0;
  }
  const endMs = performance.now();
  context.record({ kind: step.kind, endMs, latencyMs: endMs - started, status });
  return { status, json };
}

/** One slot of the mix; the last write slot alternates agent creation with an API key's create and delete. */
export async function runSlot(context: LoadContext, worker: number, i: number): Promise<void> {
  if (i % (2 * MIX.length) === 2 * MIX.length - 1) {
    const body = { name: `soak key ${worker}-${i}`, scopes: [API_KEY_SCOPES[0]] };
    const created = await send(context, { kind: 'create-key', method: 'POST', path: '/api/api-keys', body, token: 'owner' });
    if (created.status === 201 && created.json.id) {
      await send(context, { kind: 'delete-key', method: 'DELETE', path: `/api/api-keys/${created.json.id}`, token: 'owner' });
    }
    return;
  }
  const step = MIX[i % MIX.length]!(context, worker, i);
  const answer = await send(context, step);
  // An agent made is archived at once, so the organization stays under AGENTS_PER_ORGANIZATION.
  if (step.kind === 'create-agent' && answer.status === 201 && answer.json.id)
    await send(context, { kind: 'archive-agent', method: 'DELETE', path: `/api/ai/agents/${answer.json.id}`, token: 'otherOwner' });
}

/** Lists the MCP server's tools (refresh=true: a real tools/list against the peer each time). */
export async function listMcpTools(context: LoadContext): Promise<void> {
  const { agentId, serverId } = context.mcp;
  await send(context, {
    kind: 'mcp-tools',
    method: 'GET',
    path: `/api/ai/agents/${agentId}/mcp-servers/${serverId}/tools?refresh=true`,
    token: 'owner',
  });
}

/** Closed loop: `workers` workers send slots back to back until `stopAt`; returns how many completed. */
export async function closedLoop(context: LoadContext, workers: number, stopAt: number): Promise<number> {
  let done = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let i = worker; performance.now() < stopAt; i++) {
        await runSlot(context, worker, i);
        done++;
      }
    }),
  );
  return done;
}

/** A slot more than this late is skipped rather than sent: a backlog is never sent as a burst above the rate. */
const MAX_LATENESS_MS = 1_000;

/**
 * Paced: slot k is due at `origin + k / ratePerSecond` and taken by the next free worker (at most
 * `workers` in flight); a slot found more than 1 s late is skipped and counted. Latency is
 * measured from the send; the largest lateness of a sent slot is returned too.
 */
export async function pacedLoop(
  context: LoadContext,
  workers: number,
  ratePerSecond: number,
  stopAt: number,
): Promise<{ worstLagMs: number; skipped: number }> {
  const origin = performance.now();
  let next = 0;
  let worstLagMs = 0;
  let skipped = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (;;) {
        const k = next++;
        const due = origin + (k * 1000) / ratePerSecond;
        if (due >= stopAt) return;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        else if (-wait > MAX_LATENESS_MS) {
          skipped++;
          continue;
        } else worstLagMs = Math.max(worstLagMs, -wait);
        await runSlot(context, worker, k);
      }
    }),
  );
  return { worstLagMs, skipped };
}
