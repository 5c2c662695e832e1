/**
 * `npm run test:unit`: the tests that need neither PostgreSQL nor Redis, found by reading imports.
 * A test file needs the services when it, or test code it imports (followed through the test
 * folders, the fuzzer and the benches, not through the code under test), opens a connection: the
 * app and database helpers, the Redis and Cluster helpers, or a driver imported directly. New tests
 * are classified the same way, with no list to keep. The services are pointed at closed ports for
 * the run, so a test that reaches one anyway fails instead of passing by luck.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TEST_ROOTS = ['test', 'lib/rate-limit/test', 'lib/analytics/test'];
/** Test code outside the test folders whose imports are followed too: the fuzzer and the benches. */
const FOLLOWED = [...TEST_ROOTS, 'fuzz', 'bench'];
/** Helpers that connect to a service, and drivers that do. */
const SERVICE_HELPERS = new Set(
  [
    'test/helpers/app.ts',
    'test/helpers/database.ts',
    'test/helpers/backend-control.ts',
    'test/helpers/pg-standby.ts',
    'lib/rate-limit/test/helpers/redis.ts',
    'lib/rate-limit/test/helpers/cluster.ts',
  ].map((path) => join(ROOT, path)),
);
const DRIVERS = /from '(ioredis|pg|slonik|@electric-sql\/pglite[^']*)'/;

function files(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? files(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

const inTests = (path: string) => FOLLOWED.some((root) => path.startsWith(join(ROOT, root) + '/'));
const verdicts = new Map<string, boolean>();

/** Whether a test file (or helper) reaches a service through itself or the test files it imports. */
function needsServices(path: string): boolean {
  const known = verdicts.get(path);
  if (known !== undefined) return known;
  verdicts.set(path, false); // a circle among helpers adds nothing
  const source = readFileSync(path, 'utf8');
  let needs = SERVICE_HELPERS.has(path) || DRIVERS.test(source);
  for (const match of source.matchAll(/from\s+'(\.[^']+)'/g)) {
    if (needs) break;
    const target = resolve(dirname(path), match[1] as string);
    if (inTests(target) && existsSync(target)) needs = needsServices(target);
  }
  verdicts.set(path, needs);
  return needs;
}

const unit = TEST_ROOTS.flatMap((root) => files(join(ROOT, root)))
  .filter((path) => path.endsWith('.test.ts') && !needsServices(path))
  .map((path) => relative(ROOT, path));

/**
 * Files at once. ava's default (one per core) leaves a core idle while a file waits on a timer, a
 * socket or a child process (the heap burst, tsc): the run measured 110 % CPU of 200 % on two
 * cores; four keep both busy. `--concurrency <n>` on the command line wins. The files run in worker
 * threads (ava.unit.config.js).
 */
const CONCURRENCY = '4';

const args = process.argv.slice(2);
const concurrency = args.some((arg) => /^(-c|--concurrency)(=|$)/.test(arg)) ? [] : ['--concurrency', CONCURRENCY];
console.log(`test:unit: ${unit.length} test files that need no database or Redis`);
const result = spawnSync(join(ROOT, 'node_modules/.bin/ava'), ['--config', 'ava.unit.config.js', ...concurrency, ...unit, ...args], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, TEST_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:1' },
});
process.exitCode = result.status ?? 1;
