import test from 'ava';
import { runFuzz } from '../../fuzz/fuzz.ts';

test('a fixed-seed sample of 2,000 fuzzed requests over every operation finds no 5xx, no slow answer, no envelope outside the contract and no leaked secret', async (t) => {
  // A guard against a hang, not a speed target: about 45 s on a quiet machine, over 4 minutes on
  // the shared 2-core VM at load 30 (the review's attacks of issue 22 add about 830 requests).
  t.timeout(600_000);
  const lines: string[] = [];
  // The attacks' time and memory bounds are `npm run fuzz`'s: the sample holds what was answered, stored and cut.
  const result = await runFuzz({ seed: 20261123, requests: 2_000, concurrency: 4, bounds: false, write: (line) => lines.push(line) });
  t.true(result.total >= 2_000);
  t.true(result.operations.length >= 40, `only ${result.operations.length} operations in the document`);
  // Every operation was called.
  for (const operation of result.operations) t.true(result.tally.byOperation.has(operation.key), `${operation.key} was never called`);
  t.deepEqual(result.problems, []);
  // The security reviews' attacks are replayed and named in the report, and none got in.
  for (const name of [
    'IPv6 rotation',
    'IPv4-mapped alternation',
    'analytics cache fill',
    'analytics route limit',
    'OTLP span bomb',
    'pre-auth nesting bomb',
    'huge answer',
    'scope trespass',
    'workspace trespass',
    'end-user trespass',
    'guardrails skipped by a regenerate or an approval answer',
    'the daily quota passed by regenerates and approval answers',
    'a stranger registering as a verified customer',
    'an end user name with a line break for the staff',
    "a visitor reading the organization's spend",
    'an enforced budget against a provider reporting twice the estimated input',
    'public reads unthrottled',
    'hostile documents',
  ]) {
    const attack = result.attacks.find((candidate) => candidate.name.startsWith(name));
    t.true(attack?.held, `${name}: ${attack?.detail ?? 'not run'}`);
    t.true(
      lines.some((line) => line.includes(`held  ${name}`)),
      `${name} is not in the report`,
    );
  }
  t.is(result.failures, 0, lines.filter((line) => line.startsWith('  [')).join('\n'));
});
