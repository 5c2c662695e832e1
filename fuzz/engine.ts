import fc from 'fast-check';
import { findingsOf, type Finding } from './checks.ts';
import { templateOf, type Operation } from './document.ts';
import { hostileMutations } from './hostile.ts';
import type { IdPools } from './id-pools.ts';
import type { FuzzRequest } from './request.ts';
import type { SecretRegistry } from './secrets.ts';
import type { FuzzResponse } from './send.ts';
import { assemble, validParts, type Caller } from './valid.ts';

export type Outcome = { index: number; request: FuzzRequest; response: FuzzResponse; operation?: Operation; findings: Finding[] };

export type EngineContext = {
  seed: number;
  operations: Operation[];
  byKey: Map<string, Operation>;
  allowOf: Map<string, Set<string>>;
  pools: IdPools;
  secrets: SecretRegistry;
  send: (request: FuzzRequest) => Promise<FuzzResponse>;
  /** Share of hostile requests, 0 to 1. */
  hostileShare: number;
};

/** A per-request seed: the same (run seed, index) always draws the same request. */
const seedOf = (seed: number, index: number) => (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(index, 0xc2b2ae35)) | 0;

/** Draws request `index` for `caller` on `operation`: valid, or one hostile mutation of a valid one. */
export function drawRequest(context: EngineContext, operation: Operation, caller: Caller, index: number): FuzzRequest {
  const arbitrary = validParts(operation, caller, context.pools).chain((parts) => {
    const valid = assemble(operation, caller, parts, 'valid');
    const mutations = hostileMutations(operation, parts);
    return fc.oneof(
      { weight: Math.round((1 - context.hostileShare) * 100), arbitrary: fc.constant(valid) },
      {
        weight: Math.round(context.hostileShare * 100),
        arbitrary: fc
          .constantFrom(...mutations.map(([kind], position) => ({ kind, position })))
          .chain(({ kind, position }) => mutations[position]![1].map((mutate) => ({ ...mutate(valid), kind }))),
      },
    );
  });
  return fc.sample(arbitrary, { seed: seedOf(context.seed, index), numRuns: 1 })[0]!;
}

/** Sends one request and judges its answer; ids and issued tokens in good answers feed the pools. */
export async function exchange(context: EngineContext, request: FuzzRequest, index: number): Promise<Outcome> {
  const response = await context.send(request);
  // The route the bytes reach: a mutated path may fall on another template, or on none (404).
  const intended = context.byKey.get(request.operation)?.path;
  const templates = intended ? [intended, ...context.allowOf.keys()] : [...context.allowOf.keys()];
  const template = request.raw ? intended : templateOf(request.target, templates);
  const operation = template ? context.byKey.get(`${request.method} ${template}`) : undefined;
  const findings = findingsOf(request, response, operation, template ? context.allowOf.get(template) : undefined);
  if (
    response.status >= 200 &&
    response.status < 300 &&
    operation &&
    response.text &&
    !operation.path.startsWith('/api/docs') &&
    operation.path !== '/api/openapi.json'
  ) {
    try {
      const body = JSON.parse(response.text) as unknown;
      context.pools.harvest(request.principal, operation.path, body);
      context.secrets.harvestIssued(body);
      if (request.body) context.secrets.harvestStored(JSON.parse(request.body.toString('utf8')));
    } catch {
      // Not JSON: nothing to harvest.
    }
  }
  return { index, request, response, operation, findings };
}

/** Runs `count` requests from `start` with `concurrency` in flight; `pick` chooses operation and caller. */
export async function runPhase(
  context: EngineContext,
  start: number,
  count: number,
  concurrency: number,
  pick: (index: number) => { operation: Operation; caller: Caller },
  onOutcome: (outcome: Outcome) => void,
): Promise<void> {
  let next = start;
  const end = start + count;
  const worker = async () => {
    while (next < end) {
      const index = next++;
      const { operation, caller } = pick(index);
      const request = drawRequest(context, operation, caller, index);
      onOutcome(await exchange(context, request, index));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
