import { Type } from '@sinclair/typebox';
import { databaseAnswers } from '../../sql/health.ts';
import { defineRoute } from '../core/route.ts';
import { HttpError } from '../core/errors.ts';
import type { AppDeps } from '../core/deps.ts';

/** How long a dependency may take to answer the readiness probe, in milliseconds. */
const PROBE_TIMEOUT_MS = 2_000;

const withTimeout = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);

async function probe(check: () => Promise<unknown>): Promise<'up' | 'down'> {
  try {
    await withTimeout(check(), PROBE_TIMEOUT_MS);
    return 'up';
  } catch {
    return 'down';
  }
}

async function dependencies(deps: AppDeps) {
  const [postgres, redis] = await Promise.all([
    probe(() => databaseAnswers(deps.db)),
    deps.redis ? probe(() => deps.redis!.ping()) : Promise.resolve('not configured' as const),
  ]);
  return { postgres, redis };
}

const Checks = Type.Object({
  postgres: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  redis: Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Literal('not configured')]),
});

export const healthRoutes = [
  defineRoute({
    method: 'GET',
    path: '/health',
    summary: 'Liveness: the process is up',
    tags: ['health'],
    auth: 'public',
    responses: { 200: { description: 'Up', schema: Type.Object({ status: Type.Literal('ok') }) } },
    handler: () => ({ status: 'ok' as const }),
  }),
  defineRoute({
    method: 'GET',
    path: '/ready',
    summary: 'Readiness: PostgreSQL and (when configured) Redis answer',
    tags: ['health'],
    auth: 'public',
    responses: {
      200: { description: 'Ready', schema: Type.Object({ status: Type.Literal('ready'), checks: Checks }) },
      503: { description: 'A dependency is down' },
    },
    handler: async ({ deps }) => {
      const checks = await dependencies(deps);
      if (checks.postgres === 'down' || checks.redis === 'down') {
        throw new HttpError(503, 'Service not ready', { checks });
      }
      return { status: 'ready' as const, checks };
    },
  }),
];
