import { analyticsCacheStats } from '../app/analytics/cache.ts';
import type { AppDeps } from '../app/core/deps.ts';
import { exchange, type EngineContext, type Outcome } from './engine.ts';
import type { FuzzRequest } from './request.ts';
import type { Caller } from './valid.ts';

/** One attack of the security review replayed: whether it was held, and what was seen. */
export type AttackCase = {
  name: string;
  /** What the service answered, stored and cut held. */
  held: boolean;
  detail: string;
  /**
   * Whether the time and memory the attack cost stayed within its bounds (a case without bounds
   * leaves it out). `npm run fuzz` counts it as held; the suite's sample does not
   * (`FuzzOptions.bounds`), since a test asserts no wall-clock duration or heap size.
   */
  withinBounds?: boolean;
};

/** Whether an attack got in: its outcome, and its time and memory bounds where they count. */
export const gotIn = (attack: AttackCase, bounds: boolean) => !attack.held || (bounds && attack.withinBounds === false);

type Run = { context: EngineContext; record: (outcome: Outcome) => void; nextIndex: () => number };

const LOGIN = 'POST /api/identity/auth/user/login';

async function send(run: Run, request: FuzzRequest): Promise<number> {
  const outcome = await exchange(run.context, request, run.nextIndex());
  run.record(outcome);
  return outcome.response.status;
}

/** A wrong login from `address`, as the one trusted proxy reports it in X-Forwarded-For. */
const wrongLoginFrom = (address: string, kind: string): FuzzRequest => ({
  operation: LOGIN,
  kind,
  principal: 'anonymous',
  method: 'POST',
  target: '/api/identity/auth/user/login',
  headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
  body: Buffer.from(JSON.stringify({ email: 'owner@demo.test', password: 'not-the-password' })),
});

const counts = (statuses: number[]) => {
  const byStatus = new Map<number, number>();
  for (const status of statuses) byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  return [...byStatus].map(([status, n]) => `${status}x${n}`).join(' ');
};

/**
 * IPv6 rotation (issue 22): fourteen wrong logins, each from another address of one /64 (seeded),
 * then eleven alternating between an IPv4 address and its IPv4-mapped IPv6 form. Held when the
 * limit of 10 answers 429 from the eleventh request on in both, and never before.
 */
export async function ipv6Rotation(run: Run, seed: number): Promise<AttackCase[]> {
  const net = `2001:db8:${(seed & 0xffff).toString(16)}:${((seed >>> 16) & 0xff).toString(16)}`;
  const rotating: number[] = [];
  for (let i = 0; i < 14; i++) {
    rotating.push(
      await send(run, wrongLoginFrom(`${net}:${((i * 40_503 + 1) % 0xffff).toString(16)}:${i.toString(16)}::${i + 1}`, 'ipv6 rotation')),
    );
  }
  const ipv4 = `198.18.${seed & 0xff}.${((seed >>> 8) & 0xfe) + 1}`;
  const mapped: number[] = [];
  for (let i = 0; i < 11; i++) mapped.push(await send(run, wrongLoginFrom(i % 2 ? `::ffff:${ipv4}` : ipv4, 'ipv4-mapped alternation')));
  const heldAfterTen = (statuses: number[]) => !statuses.slice(0, 10).includes(429) && statuses.slice(10).every((status) => status === 429);
  return [
    {
      name: `IPv6 rotation: 14 wrong logins from 14 addresses of ${net}::/64 via X-Forwarded-For`,
      held: heldAfterTen(rotating),
      detail: counts(rotating),
    },
    {
      name: `IPv4-mapped alternation: 11 wrong logins from ${ipv4} and ::ffff:${ipv4}`,
      held: heldAfterTen(mapped),
      detail: counts(mapped),
    },
  ];
}

/** A summary query of the demo agency with a window no other request used. */
const analyticsQuery = (caller: Caller, n: number, kind: string): FuzzRequest => {
  const to = Math.floor(Date.now() / 86_400_000) * 86_400_000;
  const from = new Date(to - 7 * 86_400_000 - n * 60_000).toISOString();
  const endpoint = ['summary', 'time-series', 'heatmap', 'daily'][n % 4]!;
  return {
    operation: `GET /api/ai/org-usage/${endpoint}`,
    kind,
    principal: caller.name,
    method: 'GET',
    target: `/api/ai/org-usage/${endpoint}?from=${encodeURIComponent(from)}&to=${encodeURIComponent(new Date(to).toISOString())}`,
    headers: { authorization: `Bearer ${caller.token!}` },
  };
};

/**
 * Analytics cache fill (issue 22): `count` distinct analytics queries from one owner token on the
 * app without limits. Held when every one is answered 200 and the cache ends within its byte
 * budget, having evicted what did not fit.
 */
export async function analyticsCacheFill(run: Run, deps: AppDeps, caller: Caller, count: number, concurrency: number): Promise<AttackCase> {
  const statuses: number[] = [];
  let next = 0;
  let maxBytesSeen = 0;
  const worker = async () => {
    while (next < count) {
      statuses.push(await send(run, analyticsQuery(caller, next++, 'analytics cache fill')));
      maxBytesSeen = Math.max(maxBytesSeen, analyticsCacheStats(deps).bytes);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const stats = analyticsCacheStats(deps);
  return {
    name: `analytics cache fill: ${count} distinct analytics queries from one owner token`,
    held: statuses.every((status) => status === 200) && maxBytesSeen <= stats.maxBytes && stats.evictions > 0,
    detail:
      `${counts(statuses)}; cache at most ${maxBytesSeen} of ${stats.maxBytes} bytes, ` +
      `${stats.entries} entries, ${stats.evictions} evictions, ${stats.hits} hits, ${stats.misses} misses`,
  };
}

/**
 * The analytics route limit (issue 22): 601 summary requests of one user within a minute,
 * `concurrency` in flight. Held when exactly 600 are answered and one is 429.
 */
export async function analyticsRouteLimit(run: Run, caller: Caller, concurrency: number): Promise<AttackCase> {
  const statuses: number[] = [];
  let next = 0;
  const worker = async () => {
    // One query repeated: cache hits, so the limit is what is exercised, not the database.
    while (next++ < 601) statuses.push(await send(run, analyticsQuery(caller, 0, 'analytics route limit')));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return {
    name: 'analytics route limit: 601 requests of one user to one analytics route within a minute',
    held: statuses.length === 601 && statuses.filter((status) => status === 429).length === 1,
    detail: counts(statuses),
  };
}
