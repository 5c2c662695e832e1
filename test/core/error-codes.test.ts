import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The rule of docs/decisions/0101: each area's coded errors are constants (`errorCode(status,
 * 'AREA.CODE')`) with named factories in that area's `errors.ts`, each with a literal status and
 * code (both checked per file by ESLint, see lint-rules.test.ts), and no status and code is defined
 * twice, which needs every file at once: this scan keeps it true.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));

function sourcesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every `errorCode(status, code)` of a file: `<status> <code>` as written. */
function definitionsIn(source: string): string[] {
  const definitions: string[] = [];
  for (const match of source.matchAll(/\berrorCode\(\s*([^,)]+),\s*([^,)]+?),?\s*\)/g))
    definitions.push(`${match[1]!.trim()} ${match[2]!.trim()}`);
  return definitions;
}

const definitions = sourcesUnder(join(root, 'app')).flatMap((path) =>
  definitionsIn(readFileSync(path, 'utf8')).map((definition) => ({ file: relative(root, path), definition })),
);

test('the scan finds the coded errors of every area', (t) => {
  const found = new Set(definitions.map(({ definition }) => definition));
  for (const definition of [
    "404 'AI.AGENT_NOT_FOUND'",
    "404 'ORGANIZATION.NOT_FOUND'",
    "409 'PLANS.NO_ACTIVE_PUBLIC_PLAN'",
    "502 'MCP_OAUTH.URL_REFUSED'",
    "503 'CORE.SERVICE_UNAVAILABLE'",
  ]) {
    t.true(found.has(definition), definition);
  }
});

test('no status and code is defined twice', (t) => {
  const files = new Map<string, string[]>();
  for (const { file, definition } of definitions) files.set(definition, [...(files.get(definition) ?? []), file]);
  t.deepEqual(
    [...files].filter(([, where]) => where.length > 1),
    [],
  );
});

test('the scan reads a template code as written and sees both of two multi-line definitions', (t) => {
  t.deepEqual(definitionsIn('errorCode(502, `MCP_OAUTH.${reason}`)'), ['502 `MCP_OAUTH.${reason}`']);
  t.deepEqual(definitionsIn("A = errorCode(404, 'X.NOT_FOUND');\nB = errorCode(\n  404,\n  'X.NOT_FOUND',\n);"), [
    "404 'X.NOT_FOUND'",
    "404 'X.NOT_FOUND'",
  ]);
});
