import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The rule of docs/decisions/0101: each area's coded errors are named factories in that area's
 * `errors.ts`, each with a literal code (both checked per file by ESLint, see lint-rules.test.ts),
 * and no code is built in two places, which needs every file at once: this scan keeps it true.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));

function sourcesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every `new CodedError(status, code, ...)` of a file: its code argument as written. */
function codedErrorsIn(source: string): string[] {
  const codes: string[] = [];
  for (const match of source.matchAll(/new CodedError\(\s*([^,]+),\s*([^,]+),/g)) codes.push(match[2]!.trim());
  return codes;
}

const constructions = sourcesUnder(join(root, 'app')).flatMap((path) =>
  codedErrorsIn(readFileSync(path, 'utf8')).map((code) => ({ file: relative(root, path), code })),
);

test('the scan finds the coded errors of every area', (t) => {
  const codes = new Set(constructions.map((construction) => construction.code));
  for (const code of [
    "'AI.AGENT_NOT_FOUND'",
    "'ORGANIZATION.NOT_FOUND'",
    "'PLANS.NO_ACTIVE_PUBLIC_PLAN'",
    "'MCP_OAUTH.URL_REFUSED'",
    "'CORE.SERVICE_UNAVAILABLE'",
  ]) {
    t.true(codes.has(code), code);
  }
});

test('no code is built by two factories', (t) => {
  const files = new Map<string, string[]>();
  for (const { file, code } of constructions) files.set(code, [...(files.get(code) ?? []), file]);
  t.deepEqual(
    [...files].filter(([, where]) => where.length > 1),
    [],
  );
});

test('the scan reads a template code as not literal and sees both of two multi-line definitions', (t) => {
  t.deepEqual(codedErrorsIn('new CodedError(502, `MCP_OAUTH.${reason}`, messages)'), ['`MCP_OAUTH.${reason}`']);
  t.deepEqual(
    codedErrorsIn(
      "a = () => new CodedError(404, 'X.NOT_FOUND', m);\nb = () =>\n  new CodedError(\n    404,\n    'X.NOT_FOUND',\n    m,\n  );",
    ),
    ["'X.NOT_FOUND'", "'X.NOT_FOUND'"],
  );
});
