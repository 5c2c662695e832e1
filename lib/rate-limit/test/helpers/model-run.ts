// Runs one model-test scenario against limiters and the reference model, answer by answer.
import { randomUUID } from 'node:crypto';
import { createSlidingWindowLimiter, type SlidingWindowLimiter } from '../../src/limiter.ts';
import type { Store } from '../../src/store.ts';
import { FakeClock } from './fake-clock.ts';
import { answerOf, ReferenceLimiter, type Answer, type Operation } from './model.ts';

export interface Scenario {
  readonly limit: number;
  readonly windowMs: number;
  readonly operations: readonly Operation[];
}

/** A store under test, built on the scenario's clock. */
export type StoreFactory = (clock: () => number) => Store;

/**
 * Applies `scenario` to the reference and to one limiter per store, all on one fake clock, and returns the
 * first disagreement (`undefined` when every answer matched).
 */
export async function firstDisagreement(scenario: Scenario, stores: Record<string, StoreFactory>): Promise<string | undefined> {
  const clock = new FakeClock();
  const run = randomUUID();
  const reference = new ReferenceLimiter(scenario.limit, scenario.windowMs);
  const limiters = Object.entries(stores).map(([name, make]): [string, SlidingWindowLimiter] => [
    name,
    createSlidingWindowLimiter({ store: make(clock.now), limit: scenario.limit, windowMs: scenario.windowMs, now: clock.now }),
  ]);
  for (const [index, operation] of scenario.operations.entries()) {
    if (operation.op === 'advance') {
      clock.advance(operation.ms);
      continue;
    }
    if (operation.op === 'burst') {
      const expected = operation.keys.map((k) => reference.check(k, 1, clock.now()));
      for (const [name, limiter] of limiters) {
        const actual = (await Promise.all(operation.keys.map((k) => limiter.check(`${run}:${k}`)))).map(answerOf);
        if (JSON.stringify(actual) !== JSON.stringify(expected)) {
          return `${name}, operation ${index} ${JSON.stringify(operation)}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
        }
      }
      continue;
    }
    const key = `${run}:${operation.key}`;
    let expected: Answer | undefined;
    if (operation.op === 'check') expected = reference.check(operation.key, operation.cost, clock.now());
    else if (operation.op === 'peek') expected = reference.peek(operation.key, clock.now());
    else reference.reset(operation.key);
    for (const [name, limiter] of limiters) {
      let actual: Answer | undefined;
      if (operation.op === 'check') actual = answerOf(await limiter.check(key, { cost: operation.cost }));
      else if (operation.op === 'peek') actual = answerOf(await limiter.peek(key));
      else await limiter.reset(key);
      if (JSON.stringify(actual) !== JSON.stringify(expected)) {
        return `${name}, operation ${index} ${JSON.stringify(operation)}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
      }
    }
  }
  return undefined;
}
