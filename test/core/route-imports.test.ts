import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A route file declares routes and imports what they share from modules of its area: no route
 * file imports another (app/routes.ts, which gathers them all, aside). What two routes share
 * (a reader, a bound) lives in a module both import.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GATHERER = 'app/routes.ts';
const isRouteFile = (path: string) => /(^|\/|-)routes\.ts$/.test(path);

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The relative imports of a file (type-only and dynamic ones included), as paths from the root. */
function importsOf(path: string): string[] {
  const source = readFileSync(path, 'utf8');
  const specifiers = /^(?:import|export)\s[^;]*?from\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/gm;
  return [...source.matchAll(specifiers)].map((match) => relative(ROOT, resolve(dirname(path), (match[1] ?? match[2])!)));
}

const routeFiles = sources(join(ROOT, 'app'))
  .map((path) => relative(ROOT, path))
  .filter((path) => isRouteFile(path) && path !== GATHERER);

test('no route file imports another route file', (t) => {
  const crossings = routeFiles.flatMap((path) =>
    importsOf(join(ROOT, path))
      .filter(isRouteFile)
      .map((target) => `${path} -> ${target}`),
  );
  t.deepEqual(crossings, []);
});

test('the scan sees the route files and what the gatherer imports', (t) => {
  t.true(routeFiles.includes('app/chat/routes.ts'));
  t.true(routeFiles.includes('app/channel/public-routes.ts'));
  t.true(importsOf(join(ROOT, GATHERER)).some(isRouteFile));
});
