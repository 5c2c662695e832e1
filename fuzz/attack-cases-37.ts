import { gzipSync } from 'node:zlib';
import { emptySpansRequest, NESTING_BOMB_JSON } from './bombs.ts';
import { exchange, type EngineContext, type Outcome } from './engine.ts';
import type { FuzzRequest } from './request.ts';
import type { FuzzResponse } from './send.ts';
import type { Caller } from './valid.ts';
import type { AttackCase } from './attack-cases.ts';

type Run = { context: EngineContext; record: (outcome: Outcome) => void; nextIndex: () => number };

async function send(run: Run, request: FuzzRequest): Promise<FuzzResponse> {
  const outcome = await exchange(run.context, request, run.nextIndex());
  run.record(outcome);
  return outcome.response;
}

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Longest a health check may wait while a bomb is handled; the review saw 4.9 s. */
const HEALTH_BOUND_MS = 1_000;
/** Most the process may grow while a bomb is handled; the review saw 450 MB -> 2.0 GB. */
const RSS_BOUND_MB = 100;

/** A `usage:write` key of `owner`'s organization, made through the API. */
async function usageKey(run: Run, owner: Caller): Promise<string | undefined> {
  const response = await send(run, {
    operation: 'POST /api/api-keys',
    kind: 'otlp span bomb (setup)',
    principal: owner.name,
    method: 'POST',
    target: '/api/api-keys',
    headers: { authorization: `Bearer ${owner.token!}`, 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ name: 'fuzz span bomb', scopes: ['usage:write'] })),
  });
  return response.status === 201 ? (JSON.parse(response.text) as { key: string }).key : undefined;
}

/**
 * The OTLP span bomb (issue 37): 8 KB of gzip inflating to 4,194,296 empty spans, and a variant
 * that fits in 4 MiB (2,000,000 spans), sent with a key of `owner`'s organization while
 * `/api/health` is polled back to back. Held when the bomb is a 413 and the variant a 400, every
 * health check is 200 within `HEALTH_BOUND_MS`, and RSS grows less than `RSS_BOUND_MB`.
 */
export async function otlpSpanBomb(run: Run, owner: Caller): Promise<AttackCase> {
  const name = 'OTLP span bomb: 8 KB gzip of 4,194,296 empty spans, and 2,000,000 spans within 4 MiB, health polled';
  const key = await usageKey(run, owner);
  if (key === undefined) return { name, held: false, detail: 'no API key could be created' };
  const bombOf = (spans: number): FuzzRequest => ({
    operation: 'POST /api/otlp/v1/traces',
    kind: 'otlp span bomb',
    principal: owner.name,
    method: 'POST',
    target: '/api/otlp/v1/traces',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
    body: gzipSync(emptySpansRequest(spans), { level: 9 }),
  });
  const bombs = [bombOf(4_194_296), bombOf(2_000_000)];
  const rssBefore = process.memoryUsage().rss;
  const health: FuzzResponse[] = [];
  let done = false;
  const polling = (async () => {
    while (!done) {
      health.push(
        await run.context.send({
          operation: 'GET /api/health',
          kind: 'check',
          principal: 'anonymous',
          method: 'GET',
          target: '/api/health',
          headers: {},
        }),
      );
    }
  })();
  const answers: FuzzResponse[] = [];
  try {
    for (const bomb of bombs) answers.push(await send(run, bomb));
  } finally {
    done = true;
    await polling;
  }
  const rssGrowthMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  const slowestHealth = Math.max(0, ...health.map((check) => check.durationMs));
  return {
    name,
    held: answers[0]?.status === 413 && answers[1]?.status === 400 && health.every((check) => check.status === 200),
    withinBounds: slowestHealth < HEALTH_BOUND_MS && rssGrowthMb < RSS_BOUND_MB,
    detail:
      `${bombs[0]!.body!.length} B -> ${answers[0]?.status} in ${answers[0]?.durationMs.toFixed(1)} ms, ` +
      `${bombs[1]!.body!.length} B -> ${answers[1]?.status} in ${answers[1]?.durationMs.toFixed(1)} ms; ` +
      `${health.length} health checks, slowest ${slowestHealth.toFixed(1)} ms; RSS ${rssGrowthMb >= 0 ? '+' : ''}${rssGrowthMb.toFixed(0)} MB`,
  };
}

/** How much longer than a refused `{}` the refused bomb may take to answer, median against median. */
const REFUSED_EXTRA_BOUND_MS = 2;

/**
 * The pre-auth nesting bomb (issue 37): `count` sends of a ~1 KB gzip body inflating to 1 MiB of
 * `[`/`]` nesting with a made-up API key to the events route, alternating with the same request
 * carrying `{}`. Held when every answer is a 401 and the bomb's median answer is within
 * `REFUSED_EXTRA_BOUND_MS` of the `{}`'s: the body is never read (before the fix each bomb cost
 * 130-160 ms, inflated and parsed before the key was looked at). Relative, so a loaded machine
 * slows both alike.
 */
export async function preAuthNestingBomb(run: Run, count: number): Promise<AttackCase> {
  const bomb = gzipSync(NESTING_BOMB_JSON, { level: 9 });
  const request = (body: Buffer, encoded: boolean): FuzzRequest => ({
    operation: 'POST /api/ai/org-usage/events',
    kind: 'pre-auth nesting bomb',
    principal: 'anonymous',
    method: 'POST',
    target: '/api/ai/org-usage/events',
    headers: {
      authorization: `Bearer agk_${'f'.repeat(43)}`,
      'content-type': 'application/json',
      ...(encoded ? { 'content-encoding': 'gzip' } : {}),
    },
    body,
  });
  const bombs: FuzzResponse[] = [];
  const plain: FuzzResponse[] = [];
  for (let i = 0; i < count; i++) {
    bombs.push(await send(run, request(bomb, true)));
    plain.push(await send(run, request(Buffer.from('{}'), false)));
  }
  const statuses = [...new Set([...bombs, ...plain].map((answer) => answer.status))];
  const bombMedian = median(bombs.map((answer) => answer.durationMs));
  const plainMedian = median(plain.map((answer) => answer.durationMs));
  return {
    name: `pre-auth nesting bomb: ${count} x ${bomb.length} B of gzip (1 MiB of nesting) with a made-up key, beside ${count} x {}`,
    held: statuses.length === 1 && statuses[0] === 401,
    withinBounds: bombMedian <= plainMedian + REFUSED_EXTRA_BOUND_MS,
    detail: `statuses ${statuses.join(',')}; median answer ${bombMedian.toFixed(2)} ms (bomb) vs ${plainMedian.toFixed(2)} ms ({})`,
  };
}
