import test from 'ava';
import { runFuzz } from '../../fuzz/fuzz.ts';

test('a fixed-seed sample of 2,000 fuzzed requests over every operation finds no 5xx, no slow answer, no envelope outside the contract and no leaked secret', async (t) => {
  t.timeout(180_000);
  const lines: string[] = [];
  const result = await runFuzz({ seed: 20261123, requests: 2_000, concurrency: 4, write: (line) => lines.push(line) });
  t.true(result.total >= 2_000);
  t.true(result.operations.length >= 40, `only ${result.operations.length} operations in the document`);
  // Every operation was called.
  for (const operation of result.operations) t.true(result.tally.byOperation.has(operation.key), `${operation.key} was never called`);
  t.deepEqual(result.problems, []);
  t.is(result.failures, 0, lines.filter((line) => line.startsWith('  [')).join('\n'));
});
