import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { areaRoutes } from '../../app/routes.ts';

/** Every route's path is written out as one string literal in app/, so a search for it finds its declaration. */
const APP = fileURLToPath(new URL('../../app/', import.meta.url));

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith('.ts') ? [readFileSync(path, 'utf8')] : [];
  });
}

test("a search for any route's path finds it written out in app/", (t) => {
  const text = sources(APP).join('\n');
  t.true(areaRoutes.length > 70, `${areaRoutes.length} routes`);
  t.deepEqual(
    areaRoutes.filter((route) => !text.includes(`'${route.path}'`)).map((route) => `${route.method} ${route.path}`),
    [],
  );
});
