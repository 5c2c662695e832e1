import test from 'ava';
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';

/** The project's own lint rules (eslint.config.js), run on sources written to break them. */
const eslint = new ESLint({ cwd: fileURLToPath(new URL('../..', import.meta.url)) });

async function messages(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => `${m.line}: ${m.message}`);
}

const CODED = "import { CodedError, errorCode } from '../core/errors.ts';\n";

test('a coded error defined or built outside an errors.ts file is refused', async (t) => {
  const source = `${CODED}const X_NOT_FOUND = errorCode(404, 'X.NOT_FOUND');\nexport const a = () => new CodedError(X_NOT_FOUND, { en: '', es: '' });\n`;
  const refused = "define and build coded errors in the area's errors.ts (one constant and one named factory per code)";
  t.deepEqual(await messages(source, 'app/agents/routes.ts'), [`2: ${refused}`, `3: ${refused}`]);
});

test('in errors.ts a coded error needs a literal status and a literal AREA.CODE', async (t) => {
  const source = `${CODED}const reason = 'X';
const status = 404;
export const A = errorCode(404, 'X.NOT_FOUND');
export const B = errorCode(502, \`MCP_OAUTH.\${reason}\`);
export const C = errorCode(400, 'lower.case');
export const D = errorCode(status, 'X.GONE');
`;
  const literal = "a coded error names its status and its code as literals: errorCode(404, 'AREA.CODE')";
  t.deepEqual(await messages(source, 'app/agents/errors.ts'), [`5: ${literal}`, `6: ${literal}`, `7: ${literal}`]);
});

test('SQL that leaves state on a pooled session is refused, transaction-scoped forms pass', async (t) => {
  const source = `import { sql } from 'slonik';
export const a = sql.unsafe\`SET statement_timeout = 5\`;
export const b = sql.unsafe\`UPDATE agents SET name = 'x'\`;
export const c = sql.unsafe\`SET LOCAL lock_timeout = '1s'\`;
export const d = sql.unsafe\`SELECT pg_advisory_lock(1)\`;
export const e = sql.unsafe\`SELECT pg_advisory_xact_lock(1)\`;
export const f = sql.unsafe\`CREATE TEMP TABLE x (id int)\`;
export const g = sql.unsafe\`LISTEN jobs\`;
`;
  const refused = (await messages(source, 'sql/agents.ts')).map((line) => line.split(':')[0]);
  t.deepEqual(refused, ['2', '5', '7', '8']);
});

test('a module reads files below its own folder only', async (t) => {
  const source = `export const a = new URL('../../seeds/logos/', import.meta.url);
export const b = new URL('./logos/', import.meta.url);
`;
  t.deepEqual(await messages(source, 'app/mcp-catalog/logos.ts'), [
    "1: read files below this module's folder (a file of another layer is that layer's to read)",
  ]);
  t.is((await messages(source, 'lib/rate-limit/src/lua.ts')).length, 1);
});

test('a pattern that can backtrack or move super-linearly is refused in app/, a linear one passes', async (t) => {
  const source = `export const heading = /^(#{1,6})[ \\t]+(.+?)[ \\t#]*$/;
export const trailing = (text: string) => text.replace(/\\/+$/, '');
export const tags = (html: string) => html.replace(/<[^<>]*>/g, ' ');
`;
  const [result] = await eslint.lintText(source, { filePath: 'app/knowledge/example.ts' });
  const refused = (result?.messages ?? []).filter((m) => m.ruleId?.startsWith('regexp/')).map((m) => `${m.line}: ${m.ruleId}`);
  t.deepEqual([...new Set(refused)], ['1: regexp/no-super-linear-backtracking', '2: regexp/no-super-linear-move']);
});
