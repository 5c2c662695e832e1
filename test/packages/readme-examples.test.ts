import test from 'ava';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONSUMER_COMPILER_OPTIONS, LIBRARY_READMES, tsExamples, writeReadmeExamples } from '../../bin/packages/readme-examples.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

test('only the ts blocks are examples: signature listings, JSON and shell blocks are not', (t) => {
  const markdown = [
    '```ts',
    'const a = 1;',
    '```',
    '```ts signatures',
    'f(x: number): void',
    '```',
    '```json',
    '{}',
    '```',
    '```ts',
    'const b = 2;',
    '',
    'b;',
    '```',
  ].join('\n');
  t.deepEqual(tsExamples(markdown), [
    { line: 2, code: 'const a = 1;' },
    { line: 11, code: 'const b = 2;\n\nb;' },
  ]);
});

test('every ts example of both library READMEs compiles against the libraries, as a consumer imports them', (t) => {
  for (const readme of LIBRARY_READMES) {
    t.true(tsExamples(readFileSync(readme.path, 'utf8')).length >= 3, `${readme.name} README has its examples`);
  }
  // A project outside the repository that sees the repository's packages; the `source` condition
  // resolves @agents/* to the current sources (bin/check-packages.ts does the same against the packed builds).
  const dir = mkdtempSync(join(tmpdir(), 'readme-examples-'));
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
    const files = writeReadmeExamples(dir);
    const compilerOptions = {
      ...CONSUMER_COMPILER_OPTIONS,
      noEmit: true,
      skipLibCheck: true,
      allowImportingTsExtensions: true,
      customConditions: ['agents-source'],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }));
    const tsc = spawnSync(process.execPath, [TSC, '-p', dir, '--pretty', 'false'], { encoding: 'utf8' });
    t.is(tsc.stdout + tsc.stderr, '', 'tsc reports nothing');
    t.is(tsc.status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
