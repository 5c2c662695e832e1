import test from 'ava';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * No circle of relative imports among the sources, type-only imports included (the lint rule
 * `import-x/no-cycle` skips those, but a circle of types still couples two files both ways).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['app', 'sql', 'seeds', 'bin', 'lib/rate-limit/src', 'lib/analytics/src', 'dashboard/src'];

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Relative `import`/`export ... from` specifiers of a file, type-only ones and dynamic `import()`
 * included, resolved. A specifier that names no file is a failure of its own (below), so that a
 * spelling the scan cannot follow never hides a circle.
 */
function importsOf(path: string, source: string): { found: string[]; unresolved: string[] } {
  const found: string[] = [];
  const unresolved: string[] = [];
  const specifiers = /^(?:import|export)\s[^;]*?from\s+'(\.[^']+)'|^import\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/gm;
  for (const match of source.matchAll(specifiers)) {
    const specifier = (match[1] ?? match[2] ?? match[3]) as string;
    const target = resolve(dirname(path), specifier);
    if (existsSync(target)) found.push(target);
    else unresolved.push(`${relative(ROOT, path)}: ${specifier}`);
  }
  return { found, unresolved };
}

/** Every circle of a directed graph, each once, as its files from the first one found (Tarjan SCCs). */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component);
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return components;
}

/** The import graph of every source file, and the specifiers it could not resolve. */
function sourceGraph(): { graph: Map<string, string[]>; unresolved: string[] } {
  const graph = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const folder of FOLDERS) {
    for (const path of sources(join(ROOT, folder))) {
      const imports = importsOf(path, readFileSync(path, 'utf8'));
      graph.set(path, imports.found);
      unresolved.push(...imports.unresolved);
    }
  }
  return { graph, unresolved };
}

/** The graph of app/'s area folders (`app/<area>`): an edge where a file of one imports a file of another. */
function areaGraph(graph: Map<string, string[]>): Map<string, string[]> {
  const areaOf = (path: string) => /^app\/[^/]+(?=\/)/.exec(relative(ROOT, path))?.[0];
  const areas = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const area = areaOf(from);
    if (area === undefined) continue;
    if (!areas.has(area)) areas.set(area, new Set());
    for (const target of targets) {
      const other = areaOf(target);
      if (other !== undefined && other !== area) areas.get(area)!.add(other);
    }
  }
  return new Map([...areas].map(([area, targets]) => [area, [...targets]]));
}

/** The knots docs/architecture.md lists as intended: the folders named before the colon of each item. */
function documentedKnots(): string[][] {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = doc.split('### Folders of app/ that import each other')[1]!.split(/\n#/)[0]!;
  return [...section.matchAll(/^- (.+?):/gm)].map((item) => [...item[1]!.matchAll(/`(app\/[^`]+)`/g)].map((folder) => folder[1]!).sort());
}

test('no two source files import each other, directly or through others, even for types or on demand', (t) => {
  const { graph, unresolved } = sourceGraph();
  t.true(graph.size > 200, `${graph.size} files scanned`);
  t.deepEqual(unresolved, [], 'every relative specifier names a file');
  t.deepEqual(
    circles(graph).map((component) => component.map((path) => relative(ROOT, path)).sort()),
    [],
  );
});

test('the folders of app/ that import each other are the knots the architecture page lists, and no others', (t) => {
  const knots = circles(areaGraph(sourceGraph().graph)).map((component) => component.sort());
  const documented = documentedKnots();
  t.true(documented.length > 0, 'docs/architecture.md lists its knots');
  t.deepEqual(
    knots.sort((a, b) => a[0]!.localeCompare(b[0]!)),
    documented.sort((a, b) => a[0]!.localeCompare(b[0]!)),
    'untie the folders or write the knot down in docs/architecture.md, "Folders of app/ that import each other"',
  );
});

test('the scan follows type-only and dynamic imports', (t) => {
  const page = join(ROOT, 'dashboard/src/pages/x.ts');
  t.deepEqual(importsOf(page, "import type { A } from '../a.ts';\nconst load = () => import('./b.ts');\n"), {
    found: [],
    unresolved: ['dashboard/src/pages/x.ts: ../a.ts', 'dashboard/src/pages/x.ts: ./b.ts'],
  });
});

test('the scan finds a circle made of type-only imports', (t) => {
  const a = join(ROOT, 'a.ts');
  const b = join(ROOT, 'b.ts');
  t.deepEqual(
    circles(
      new Map([
        [a, [b]],
        [b, [a]],
      ]),
    ).length,
    1,
  );
  t.deepEqual(
    circles(
      new Map([
        [a, [b]],
        [b, []],
      ]),
    ).length,
    0,
  );
});
