/**
 * The blocked-term matcher (app/chat/guardrails.ts, `hasBlockedTerm`): 200 terms against a
 * 32,000-character message (the largest term list an agent may hold; a long message), one check
 * at a time on this thread, as a chat turn runs it. The matcher is compiled once per agent version,
 * so the compile is timed apart and the checks run with it built.
 *
 *   npm run bench:guardrails     # BENCH_CHECKS (default 2,000) checks per row, each row at most BENCH_ROW_MS (default 5,000) ms
 *
 * Rows: ordinary terms and prose that holds none of them (the whole message is scanned), the same
 * with a term as its last word, and hostile inputs written to make the matcher work: terms that
 * share a 99-character prefix of words against a message of those words (every word start tries
 * every term), the same with one letter per word (the prefix is the whole message), terms and
 * message in letters whose case folding is not ASCII's, and a message of whitespace runs.
 * Target: p50 and p99 of a check ≤ 0.1 ms. A last column times the compiled pattern alone, without the
 * check's whitespace normalization.
 */
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { blockedTermsPattern, hasBlockedTerm } from '../../app/chat/guardrails.ts';

const CHECKS = Number(process.env.BENCH_CHECKS ?? 2_000);
const ROW_MS = Number(process.env.BENCH_ROW_MS ?? 5_000);
const MESSAGE_CHARS = 32_000;
const TERMS = 200;
const TARGET_MS = 0.1;

/** A small deterministic generator (mulberry32): the same inputs on every run. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const word = (next: () => number, alphabet: string, min: number, max: number) =>
  Array.from({ length: min + Math.floor(next() * (max - min + 1)) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');

/** `unit` repeated to exactly `chars` characters. */
const fill = (unit: string, chars: number) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);

type Case = { name: string; terms: string[]; message: string; expected: boolean };

function cases(): Case[] {
  const next = random(48);
  const latin = 'abcdefghijklmnopqrstuvwxyz';
  // Ordinary terms: 150 words of 4-12 letters and 50 phrases of two or three words, in mixed case.
  const terms = [
    ...Array.from({ length: 150 }, () => word(next, latin, 4, 12)),
    ...Array.from({ length: 50 }, () => Array.from({ length: 2 + Math.floor(next() * 2) }, () => word(next, latin, 3, 9)).join(' ')),
  ].map((term, i) => (i % 3 === 0 ? term.toUpperCase() : term));
  // Prose of short words (1-3 letters, so none is a term), punctuation and line breaks.
  let prose = '';
  while (prose.length < MESSAGE_CHARS) prose += `${word(next, latin, 1, 3)}${next() < 0.1 ? '. ' : next() < 0.02 ? '\n' : ' '}`;
  prose = prose.slice(0, MESSAGE_CHARS);
  const last = terms[7]!.toLowerCase();
  const endsWithTerm = `${prose.slice(0, MESSAGE_CHARS - last.length - 1)} ${last}`;

  // Hostile: 200 terms of 50 two-character words "a " sharing 98 characters, each ending in its own letter pair.
  const pairs = Array.from({ length: TERMS }, (_, i) => `${latin[Math.floor(i / 26) % 26]}${latin[i % 26]}`);
  const sharedWords = pairs.map((pair) => `${'a '.repeat(49)}${pair}`);
  // Hostile: 200 terms of one word of 100 letters sharing 98, and a message of 99-letter words that begin like all of them.
  const sharedPrefix = pairs.map((pair) => `${'b'.repeat(98)}${pair}`);
  // Hostile: case folding outside ASCII: "ſ" (long s) and "K" (Kelvin sign) fold to s and k; Greek sigma has three forms.
  const foldAlphabet = 'ſsSKkKσςΣ';
  const foldTerms = Array.from({ length: TERMS }, (_, i) => `${'ſ'.repeat(20)}${word(random(i), foldAlphabet, 10, 30)}x`);
  return [
    { name: 'ordinary terms, prose holding none', terms, message: prose, expected: false },
    { name: 'ordinary terms, one as the last word', terms, message: endsWithTerm, expected: true },
    {
      name: 'hostile: terms of 50 words sharing 49, message of those words',
      terms: sharedWords,
      message: fill('a ', MESSAGE_CHARS),
      expected: false,
    },
    {
      name: 'hostile: 100-letter terms sharing 98 letters, message of 99-letter words',
      terms: sharedPrefix,
      message: fill(`${'b'.repeat(99)} `, MESSAGE_CHARS),
      expected: false,
    },
    {
      name: 'hostile: non-ASCII case folding (ſ, K, σ/ς/Σ)',
      terms: foldTerms,
      message: fill(`${'S'.repeat(25)}ΣσςKk `, MESSAGE_CHARS),
      expected: false,
    },
    {
      name: 'hostile: whitespace runs (every run made one space)',
      terms,
      message: fill(' \t\n\u00a0\u2003 x', MESSAGE_CHARS),
      expected: false,
    },
  ];
}

function at(values: number[], p: number) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function measure(row: Case, index: number) {
  const agent = {
    id: `bench-${index}`,
    updatedAt: new Date(0).toISOString(),
    guardrails: { blockedTerms: row.terms, moderationModel: null, refusal: '' },
  };
  const compileStarted = performance.now();
  blockedTermsPattern(agent);
  const compileMs = performance.now() - compileStarted;
  const pattern = blockedTermsPattern(agent)!;
  // The pattern alone, on the message as given (the check first makes whitespace runs one space).
  const patternTimes: number[] = [];
  const times: number[] = [];
  const started = performance.now();
  let tripped = false;
  while (times.length < CHECKS && performance.now() - started < ROW_MS) {
    let t = performance.now();
    tripped = hasBlockedTerm(agent, row.message);
    times.push(performance.now() - t);
    t = performance.now();
    pattern.test(row.message);
    patternTimes.push(performance.now() - t);
  }
  if (tripped !== row.expected) throw new Error(`${row.name}: the matcher answered ${tripped}`);
  return { compileMs, checks: times.length, p50: at(times, 50), p99: at(times, 99), max: at(times, 100), patternP50: at(patternTimes, 50) };
}

const rows = cases().map((row, index) => ({ row, result: measure(row, index) }));
const ms = (n: number) => (n < 1 ? n.toFixed(4) : n.toFixed(2));
const out = [
  `Load average at the end: ${loadavg()
    .map((n) => n.toFixed(1))
    .join(' ')} on ${availableParallelism()} CPUs.`,
  `Blocked-term matcher bench, ${new Date().toISOString()}, Node ${process.version}: ${TERMS} terms, ${MESSAGE_CHARS.toLocaleString('en')}-character messages.`,
  '',
  '| input | compile ms (once per agent version) | checks | check p50 ms | check p99 ms | max ms | the pattern alone p50 ms | target p50 and p99 ≤ 0.1 ms |',
  '|---|---:|---:|---:|---:|---:|---:|---|',
  ...rows.map(
    ({ row, result }) =>
      `| ${row.name} | ${ms(result.compileMs)} | ${result.checks} | ${ms(result.p50)} | ${ms(result.p99)} | ${ms(result.max)} | ${ms(result.patternP50)} | ` +
      `${result.p50 <= TARGET_MS && result.p99 <= TARGET_MS ? 'pass' : 'miss'} |`,
  ),
];
process.stdout.write(`${out.join('\n')}\n`);
