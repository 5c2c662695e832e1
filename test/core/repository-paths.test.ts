import test from 'ava';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Every repository path that the docs and the code's comments name exists, so a reader who
 * follows one lands on a file. Checked: every path under a top folder of the repository that ends
 * in a file extension or a slash (`app/core/route.ts`, `bench/soak/`), in Markdown anywhere and in
 * the comments of TypeScript, JavaScript and SQL; and every relative Markdown link. Globs and
 * placeholders (`sql/usage-*.ts`, `NNNN_name.sql`) are patterns, not paths.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', 'coverage', 'test-output']);
const TOP_FOLDERS = ['app', 'sql', 'lib', 'test', 'bench', 'bin', 'seeds', 'dashboard', 'docs', 'fuzz'];
const PATH = new RegExp(String.raw`(?<![\w./@<-])((?:${TOP_FOLDERS.join('|')})/[\w./-]*(?:\.[a-z]{2,4}\b|/))`, 'g');
const PATTERN = /\*|NNNN|\{|<|\.\.\./;
/**
 * Released migrations are never edited, not even a comment (test/core/released-migrations.test.ts):
 * the decision records they cite moved into the area pages, whose index still names each number
 * (docs/decisions/README.md, "Earlier records").
 */
const RELEASED_MIGRATION = /^sql\/migrations\/\d{4}_/;
const MOVED_RECORD = /^docs\/decisions\/(\d{4})-[\w-]+\.md$/;

function files(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith('.') || SKIPPED_DIRECTORIES.has(entry.name) ? [] : files(path);
    return /\.(ts|js|sql|md)$/.test(entry.name) ? [path] : [];
  });
}

/** The text a reader is pointed from: all of a Markdown file, the comments of code. */
function prose(path: string, source: string): string {
  if (path.endsWith('.md')) return source;
  if (path.endsWith('.sql')) return [...source.matchAll(/--[^\n]*/g)].map((match) => match[0]).join('\n');
  return [...source.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`])\/\/[^\n]*/g)].map((match) => match[0]).join('\n');
}

/** Where a named path may live: from the repository root, or from the package root of a file under lib/<name>/. */
function exists(file: string, path: string): boolean {
  const inPackage = /^lib\/[^/]+\//.exec(file)?.[0];
  return existsSync(join(ROOT, path)) || (inPackage !== undefined && existsSync(join(ROOT, inPackage, path)));
}

const movedRecords = new Set(
  [
    ...readFileSync(join(ROOT, 'docs/decisions/README.md'), 'utf8')
      .split('## Earlier records')[1]!
      .matchAll(/^\| (\d{4}) \|/gm),
  ].map((match) => match[1]!),
);

/** The paths a file names that do not exist, as `file: path`. */
function missingPaths(file: string, source: string): string[] {
  const text = prose(file, source);
  const missing: string[] = [];
  for (const match of text.matchAll(PATH)) {
    const path = match[1]!;
    if (PATTERN.test(path) || exists(file, path)) continue;
    const record = MOVED_RECORD.exec(path);
    if (record && RELEASED_MIGRATION.test(file) && movedRecords.has(record[1]!)) continue;
    missing.push(`${file}: ${path}`);
  }
  if (file.endsWith('.md')) {
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!.split('#')[0]!;
      if (target === '' || /^[a-z]+:/.test(target)) continue;
      if (!existsSync(join(ROOT, dirname(file), target))) missing.push(`${file}: ${match[1]}`);
    }
  }
  return missing;
}

test('every repository path named in the docs and in code comments exists', (t) => {
  const scanned = files(ROOT).map((path) => relative(ROOT, path));
  t.true(scanned.length > 400, `${scanned.length} files scanned`);
  t.deepEqual(
    scanned.flatMap((file) => missingPaths(file, readFileSync(join(ROOT, file), 'utf8'))),
    [],
  );
});

test('the path check reads comments, not code, and finds a path that is gone', (t) => {
  t.deepEqual(missingPaths('app/x.ts', "// see app/core/gone.ts\nconst model = 'test/priced-model.ts';\n"), ['app/x.ts: app/core/gone.ts']);
  t.deepEqual(missingPaths('docs/x.md', 'From `app/core/route.ts` to [a gone page](gone.md#top).'), ['docs/x.md: gone.md#top']);
  t.deepEqual(missingPaths('app/x.ts', '/** Any of `sql/usage-*.ts`, or app/core/route.ts. */'), []);
});

test('nothing in the repository cites the external specification: its facts are restated in docs/', (t) => {
  const citing = files(ROOT)
    .map((path) => relative(ROOT, path))
    .filter((file) => !RELEASED_MIGRATION.test(file) && file !== relative(ROOT, fileURLToPath(import.meta.url)))
    .filter((file) => /contract \u00a7|contract\.md|service-interface\.md|\.\.\/shared\b/i.test(readFileSync(join(ROOT, file), 'utf8')));
  t.deepEqual(citing, []);
});
