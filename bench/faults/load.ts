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
) => { kind: string; method: string; path: string; body?: unknown; auth: boolean; ip?: string; write?: Sample['write'] };

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
    samples.push(await send(context, dispatcher, step));
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

async function send(context: LoadContext, dispatcher: Agent, step: ReturnType<Step>): Promise<Sample> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (step.auth) headers.authorization = `Bearer ${context.token}`;
  if (step.ip) headers['x-forwarded-for'] = step.ip;
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
    if (step.kind === 'create-agent' && response.statusCode === 201 && json.id) sample.write = { ...step.write, agentId: json.id };
    return sample;
  } catch {
    return { kind: step.kind, startMs, endMs: context.now(), status: 0, ...(step.write ? { write: step.write } : {}) };
  }
}
