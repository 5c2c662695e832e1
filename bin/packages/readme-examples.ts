/**
 * The TypeScript examples of the libraries' READMEs, as files a compiler can check: every fenced
 * block whose info string is exactly `ts` (a ` ```ts signatures ` block lists an API and is not code).
 * Each block becomes a module of its own (`export {}` appended), so two examples may both declare
 * `limiter` without clashing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The READMEs whose examples must compile, by a short name used in the file names. */
/** Compiler options of a strict consumer project (NodeNext ESM); both package checks start from these. */
export const CONSUMER_COMPILER_OPTIONS = {
  target: 'ES2023',
  lib: ['ES2023'],
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  strict: true,
  noUncheckedIndexedAccess: true,
  types: ['node'],
};

export const LIBRARY_READMES = [
  { name: 'rate-limit', path: join(ROOT, 'lib/rate-limit/README.md') },
  { name: 'analytics', path: join(ROOT, 'lib/analytics/README.md') },
] as const;

/** The bodies of the ` ```ts ` blocks of `markdown`, in order, with the line each starts on (1-based). */
export function tsExamples(markdown: string): { line: number; code: string }[] {
  const examples: { line: number; code: string }[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trimEnd() !== '```ts') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]?.trimEnd() !== '```') end++;
    examples.push({ line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return examples;
}

/**
 * Writes every example of the library READMEs into `dir` as `<name>-readme-line-<n>.ts` and
 * returns the file names (relative to `dir`). The line number in the name finds the block.
 */
export function writeReadmeExamples(dir: string): string[] {
  const files: string[] = [];
  for (const readme of LIBRARY_READMES) {
    for (const { line, code } of tsExamples(readFileSync(readme.path, 'utf8'))) {
      const file = `${readme.name}-readme-line-${line}.ts`;
      writeFileSync(join(dir, file), `${code}\nexport {};\n`);
      files.push(file);
    }
  }
  return files;
}
