/**
 * `npm run check:packages`: the two libraries as another service gets them (ADR 0098).
 *
 * 1. copy each library's folder (without `node_modules/`, `dist/`) to a temporary directory outside the
 *    repository, `npm install` its own devDependencies there, `npm run typecheck`, then `npm pack`
 *    (its `prepack` builds `dist/` with the library's own tsconfig): nothing hoisted from the root helps;
 * 2. `attw` (Are the Types Wrong?) on each tarball, ESM-only profile: every entry point resolves
 *    to JavaScript and declarations under Node's ESM resolution;
 * 3. a "core" project in a fresh temporary directory, outside the repository, installs the two
 *    tarballs and nothing else of ours: neither `ioredis` nor `koa` gets installed (optional peers),
 *    the declarations type-check with `skipLibCheck: false`, and plain Node runs a MemoryStore limiter
 *    and the analytics functions;
 * 4. a "full" project adds the peers (`koa`, `@types/koa`, `ioredis`) and the README examples'
 *    imports: `/koa` and `/redis` type-check, every ` ```ts ` README example compiles against the
 *    packed build, and a Koa app answers 200, then 429 with the neutral body and headers.
 *
 * Third-party versions are the ones this repository's lock file installed. `--keep` leaves the
 * temporary directory for inspection. Exit code 1 on the first failure.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CONSUMER_COMPILER_OPTIONS, writeReadmeExamples } from './packages/readme-examples.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LIBRARIES = ['lib/rate-limit', 'lib/analytics'];
const require = createRequire(import.meta.url);
const TSC = require.resolve('typescript/bin/tsc');
const ATTW = join(require.resolve('@arethetypeswrong/cli/package.json'), '..', 'dist/index.js');

const { values } = parseArgs({ options: { keep: { type: 'boolean', default: false } } });

/** Runs a command, echoing it; returns its standard output, throws with all its output when it fails. */
function run(command: string, args: string[], cwd: string): string {
  console.log(`$ (${cwd}) ${[command, ...args].join(' ')}`);
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** `name@version` as installed in this repository, so the temporary projects test what we test. */
function pinned(name: string): string {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
  return `${name}@${manifest.version}`;
}

/** A fresh ESM project in `dir` with `packages` installed (tarballs or `name@version`). */
function project(dir: string, packages: string[]): void {
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...packages], dir);
}

/** Type-checks and emits `files` to `out/` with the strictest consumer settings (declarations included). */
function compile(dir: string, files: string[]): void {
  const compilerOptions = { ...CONSUMER_COMPILER_OPTIONS, exactOptionalPropertyTypes: true, skipLibCheck: false, outDir: 'out' };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }, null, 2));
  run(process.execPath, [TSC, '-p', dir, '--pretty', 'false'], dir);
}

const CORE_CHECK = `
import { createSlidingWindowLimiter, MemoryStore, parseWindow, type Duration } from '@agents/rate-limit';
import { bucketStarts, percentileCont } from '@agents/analytics';

function expect(actual: unknown, expected: unknown, what: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(\`\${what}: \${JSON.stringify(actual)} !== \${JSON.stringify(expected)}\`);
}

const window: Duration = '1m';
// @ts-expect-error: hours are not a Duration unit
const hours: Duration = '1h';
const limiter = createSlidingWindowLimiter({ store: new MemoryStore(), limit: 2, windowMs: window });
const allowed = [];
for (let i = 0; i < 3; i++) allowed.push((await limiter.check('client')).allowed);
expect(allowed, [true, true, false], 'a MemoryStore limiter of 2 per minute');
expect(createSlidingWindowLimiter({ store: new MemoryStore(), limit: 1, windowMs: 60_000 }).windowMs, 60_000, 'windowMs in ms');
expect(parseWindow('15m'), 900_000, "parseWindow('15m')");
expect(percentileCont([1, 2, 3, 4], 0.5), 2.5, 'percentileCont');
const days = bucketStarts({ from: new Date('2026-03-28T00:00:00Z'), to: new Date('2026-03-31T00:00:00Z'), granularity: 'day', timeZone: 'Europe/Berlin' });
expect(days.map((d) => d.toISOString()), ['2026-03-27T23:00:00.000Z', '2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z', '2026-03-30T22:00:00.000Z'], 'Berlin days over DST');
console.log('core: MemoryStore limiter, parseWindow, percentileCont, bucketStarts work without ioredis or koa');
`;

const FULL_CHECK = `
import Koa from 'koa';
import { Redis } from 'ioredis';
import { MemoryStore } from '@agents/rate-limit';
import { rateLimit, type DenialInfo } from '@agents/rate-limit/koa';
import { RedisStore, type RedisScriptClient } from '@agents/rate-limit/redis';

const client: RedisScriptClient = new Redis({ lazyConnect: true });
const store = new RedisStore(client, { prefix: 'check-packages:' });
if (typeof store.redisKey !== 'function') throw new Error('RedisStore from /redis');
(client as Redis).disconnect();

const body = (denial: DenialInfo) => denial;
void body;
const app = new Koa();
app.use(rateLimit({ windowMs: '1m', limit: 1, identifierType: 'ip', store: new MemoryStore() }));
app.use((ctx) => {
  ctx.body = { ok: true };
});
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const address = server.address();
if (address === null || typeof address === 'string') throw new Error('no port');
const url = \`http://127.0.0.1:\${address.port}/\`;
const first = await fetch(url);
const second = await fetch(url);
server.close();
const denied = await second.json();
if (first.status !== 200 || first.headers.get('ratelimit-policy') !== '"default";q=1;w=60') throw new Error(\`allowed: \${first.status} \${first.headers.get('ratelimit-policy')}\`);
if (second.status !== 429 || second.headers.get('retry-after') !== '60') throw new Error(\`denied: \${second.status} \${second.headers.get('retry-after')}\`);
if (JSON.stringify(denied) !== JSON.stringify({ statusCode: 429, message: 'Too Many Requests' })) throw new Error(\`body: \${JSON.stringify(denied)}\`);
console.log('full: /koa answers 200 then 429 with the neutral body and Retry-After; /redis type-checks and constructs');
`;

const work = mkdtempSync(join(tmpdir(), 'agents-packages-'));
try {
  const tarballs: string[] = [];
  for (const library of LIBRARIES) {
    const alone = join(work, `${basename(library)}-alone`);
    cpSync(join(ROOT, library), alone, { recursive: true, filter: (source) => !/[/\\](node_modules|dist)$/.test(source) });
    run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], alone);
    run('npm', ['run', 'typecheck'], alone);
    const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], alone).replace(/^[^[]*/s, '')) as {
      filename: string;
    }[];
    const tarball = join(work, packed[0]!.filename);
    tarballs.push(tarball);
    console.log(run(process.execPath, [ATTW, tarball, '--profile', 'esm-only', '--format', 'table-flipped', '--no-color'], work));
  }

  const core = join(work, 'core');
  project(core, [...tarballs, pinned('@types/node')]);
  for (const peer of ['ioredis', 'koa']) {
    if (existsSync(join(core, 'node_modules', peer))) throw new Error(`core: installing the libraries also installed ${peer}`);
  }
  writeFileSync(join(core, 'core.ts'), CORE_CHECK);
  compile(core, ['core.ts']);
  console.log(run(process.execPath, ['out/core.js'], core));

  const full = join(work, 'full');
  project(full, [...tarballs, ...['@types/node', 'koa', '@types/koa', 'ioredis', '@koa/router', 'pino'].map(pinned)]);
  writeFileSync(join(full, 'full.ts'), FULL_CHECK);
  const examples = writeReadmeExamples(full);
  compile(full, ['full.ts', ...examples]);
  console.log(`full: ${examples.length} README examples compile against the packed build`);
  console.log(run(process.execPath, ['out/full.js'], full));
  console.log('packages: ok');
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  if (values.keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
