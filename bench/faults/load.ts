import type { Agent } from 'undici';
import { request } from 'undici';

/** One request of the load, as the client saw it. */
export type Sample = {
  kind: string;
  startMs: number;
  endMs: number;
  /** 0: no answer (connection error or client timeout). */
  status: number;
  errorCode?: string;
  retryAfter?: string;
  /** What a write sent: the tool set of an agent, or the name of an agent to create (and the id it got). */
  write?: { agentId?: string; tools?: unknown[]; name?: string };
  /** A create's attempt under its Idempotency-Key: 0 for the first, then one per retry. */
  attempt?: number;
  /** The answer carried `Idempotent-Replayed: true`. */
  replayed?: boolean;
};

export type LoadContext = {
  baseUrl: string;
  token: string;
  /** One agent per worker whose tool set only that worker replaces. */
  workerAgents: string[];
  /** Time origin of the samples (performance-like ms). */
  now: () => number;
  stopAt: number;
};

const TOOL_SETS = [
  [{ toolName: 'web_search', permissionStatus: 'always_allow', providerKey: 'web' }],
  [
    { toolName: 'send_email', permissionStatus: 'needs_approval', providerKey: 'email' },
    { toolName: 'create_event', permissionStatus: 'blocked', providerKey: 'calendar' },
  ],
  [],
];

type Step = (
  worker: number,
  i: number,
) => {
  kind: string;
  method: string;
  path: string;
  body?: unknown;
  auth: boolean;
  ip?: string;
  write?: Sample['write'];
  idempotencyKey?: string;
};

/** The mix: limited identity routes, reads (agents, analytics) and writes (agents, tool sets). */
const STEPS: Step[] = [
  (w, i) => ({
    kind: 'check-email',
    method: 'POST',
    path: '/api/identity/auth/user/check-email',
    body: { email: `w${w}-${i}@bench.test` },
    auth: false,
    ip: ipOf(w, i),
  }),
  () => ({ kind: 'analytics', method: 'GET', path: '/api/ai/org-usage/daily', auth: true }),
  (w, i) => ({
    kind: 'create-agent',
    method: 'POST',
    path: '/api/ai/agents',
    body: { name: `bench w${w} #${i}` },
    auth: true,
    write: { name: `bench w${w} #${i}` },
    idempotencyKey: `bench-create-${w}-${i}`,
  }),
  (w, i) => ({
    kind: 'refresh',
    method: 'POST',
    path: '/api/identity/auth/refresh',
    body: { refreshToken: `bogus-${w}-${i}` },
    auth: false,
    ip: ipOf(w, i),
  }),
  () => ({ kind: 'agents-list', method: 'GET', path: '/api/ai/agents', auth: true }),
  (w, i) => ({
    kind: 'verify-email',
    method: 'POST',
    path: '/api/identity/auth/user/verify-email',
    body: { email: `w${w}@bench.test`, code: '000000' },
    auth: false,
    ip: ipOf(w, i),
  }),
  () => ({ kind: 'cache-savings', method: 'GET', path: '/api/ai/org-usage/cache-savings', auth: true }),
];

/** Client addresses of the limited routes: four per worker, each used every fourth round, so windows fill and 429s occur. */
const ipOf = (worker: number, i: number) => `198.18.${worker}.${(Math.floor(i / STEPS.length) % 4) + 1}`;

/** Runs one worker until `stopAt`: the steps in turn, with a PUT of the worker's tool set after each. */
export async function runWorker(context: LoadContext, worker: number, dispatcher: Agent, samples: Sample[]): Promise<void> {
  for (let i = 0; context.now() < context.stopAt; i++) {
    const step = STEPS[i % STEPS.length]!(worker, i);
    samples.push(...(await sendRetrying(context, dispatcher, step)));
    const agentId = context.workerAgents[worker]!;
    const tools = TOOL_SETS[i % TOOL_SETS.length]!;
    samples.push(
      await send(context, dispatcher, {
        kind: 'put-tools',
        method: 'PUT',
        path: `/api/ai/agents/${agentId}/tools`,
        body: { tools },
        auth: true,
        write: { agentId, tools },
      }),
    );
  }
}

/** Most retries of a keyed create answered 503 or not at all, and the pause before each. */
const MAX_RETRIES = 20;
const RETRY_PAUSE_MS = 250;

/**
 * Sends a step; a create with an Idempotency-Key answered 503, not answered, or found in flight is sent again
 * with the same key, as a client that cannot know whether its COMMIT landed would (ADR 0120).
 */
async function sendRetrying(context: LoadContext, dispatcher: Agent, step: ReturnType<Step>): Promise<Sample[]> {
  const attempts: Sample[] = [];
  for (let attempt = 0; ; attempt++) {
    const sample = await send(context, dispatcher, step);
    if (step.idempotencyKey === undefined) return [sample];
    attempts.push({ ...sample, attempt });
    const inFlight = sample.status === 409 && sample.errorCode === 'CORE.IDEMPOTENCY_KEY_IN_FLIGHT';
    if ((sample.status !== 503 && sample.status !== 0 && !inFlight) || attempt >= MAX_RETRIES) return attempts;
    await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
  }
}

async function send(context: LoadContext, dispatcher: Agent, step: ReturnType<Step>): Promise<Sample> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (step.auth) headers.authorization = `Bearer ${context.token}`;
  if (step.ip) headers['x-forwarded-for'] = step.ip;
  if (step.idempotencyKey) headers['idempotency-key'] = step.idempotencyKey;
  const startMs = context.now();
  try {
    const response = await request(`${context.baseUrl}${step.path}`, {
      method: step.method as 'GET',
      headers,
      body: step.body === undefined ? undefined : JSON.stringify(step.body),
      dispatcher,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = await response.body.text();
    const endMs = context.now();
    let json: { errorCode?: string; id?: string } = {};
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      // A non-JSON body is reported by its status alone.
    }
    const sample: Sample = { kind: step.kind, startMs, endMs, status: response.statusCode };
    if (json.errorCode) sample.errorCode = json.errorCode;
    const retryAfter = response.headers['retry-after'];
    if (typeof retryAfter === 'string') sample.retryAfter = retryAfter;
    if (step.write) sample.write = step.write;
    if (response.headers['idempotent-replayed'] === 'true') sample.replayed = true;
    if (step.kind === 'create-agent' && response.statusCode === 201 && json.id) sample.write = { ...step.write, agentId: json.id };
    return sample;
  } catch {
    return { kind: step.kind, startMs, endMs: context.now(), status: 0, ...(step.write ? { write: step.write } : {}) };
  }
}
