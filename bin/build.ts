/**
 * `npm run build` (after the libraries): compiles `app/`, `sql/`, `seeds/` and `bin/` into
 * `dist/` with tsc (`tsconfig.build.json` rewrites the `.ts` import specifiers to `.js`), then
 * copies every other file of those folders beside its module, because the code finds them
 * relative to itself (`sql/migrations/*.sql`, `seeds/mcp-catalog.json`). `dist/` is removed
 * first, so a deleted source leaves no stale module behind.
 *
 * `--no-check` emits without type checking (`npm run typecheck` does that; the build smoke test
 * uses it to stay cheap).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT_DIR = join(ROOT, 'dist');
const SOURCE_DIRS = ['app', 'sql', 'seeds', 'bin'];

const { values } = parseArgs({ options: { 'no-check': { type: 'boolean', default: false } } });

rmSync(OUT_DIR, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const args = [tsc, '-p', join(ROOT, 'tsconfig.build.json'), ...(values['no-check'] ? ['--noCheck'] : [])];
const compiled = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
if (compiled.status !== 0) {
  process.exitCode = compiled.status ?? 1;
} else {
  for (const dir of SOURCE_DIRS) {
    cpSync(join(ROOT, dir), join(OUT_DIR, dir), {
      recursive: true,
      filter: (source) => statSync(source).isDirectory() || !source.endsWith('.ts'),
    });
  }
  console.log(`built ${OUT_DIR}: node dist/app/server.js (server), node dist/bin/cli.js (operator commands)`);
}
