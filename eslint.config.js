// Flat config: typescript-eslint's recommended rules over every TypeScript source in the repo,
// plus the import layers (docs/architecture.md "Layers", docs/decisions/0095-import-layers-in-lint.md).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import regexp from 'eslint-plugin-regexp';

/**
 * Which folder may not import which. Paths are resolved, so `../../app/x.ts` from any depth is
 * caught. Tests, benchmarks and `bin/` may import anything (tests and benchmarks read the demo
 * fixtures in `seeds/`).
 */
const layers = [
  { target: './lib', from: ['./app', './sql', './seeds', './bin', './bench', './test'], message: 'a library under lib/ stands alone' },
  { target: './sql', from: ['./app', './seeds', './bin'], message: 'sql/ sits below app/ and seeds/ (a type both need lives in sql/)' },
  { target: './app', from: './seeds', message: 'only bin/, bench/, test/ and the server entry app/server.ts import seeds/' },
  { target: './seeds', from: ['./bin', './bench', './test'], message: 'seeds/ does not use the command line, benchmarks or tests' },
];
const SERVER_ENTRY = 'app/server.ts';

/**
 * Connections go back to the pool without `DISCARD ALL` (app/db/pool.ts), which holds only while no
 * statement leaves state on the session: settings only through SET LOCAL or set_config(..., true),
 * advisory locks only transaction-scoped, no LISTEN, no temporary tables. (The migration runner uses
 * its own client, not the pool.) SQL keywords are written in capitals, which the pattern relies on.
 */
const NO_SESSION_STATE = {
  selector: String.raw`TemplateElement[value.raw=/(^|;)\s*(SET\s+(?!LOCAL\b)|RESET\b|LISTEN\b|CREATE\s+(TEMP|TEMPORARY)\b)|pg_advisory_lock|pg_try_advisory_lock\(/]`,
  message: 'no session state on pooled connections: use SET LOCAL, set_config(..., true) or pg_advisory_xact_lock',
};
/** A row schema is built once, beside its function (built per call, a zod schema cost ~60 us a statement; bench/chat). */
const ROW_SCHEMA_BUILT_ONCE = {
  selector: String.raw`CallExpression[callee.object.name='sql'][callee.property.name='type'] > CallExpression[callee.object.name='z']`,
  message: 'build the row schema once: a module-level const beside the function, passed to sql.type(...)',
};
/** The import layers hold for files read at run time too: a module reads files below its own folder only. */
const FILES_OF_OWN_FOLDER = {
  selector: String.raw`NewExpression[callee.name='URL'][arguments.0.value=/^\.\.\//]`,
  message: "read files below this module's folder (a file of another layer is that layer's to read)",
};
/** Coded errors (docs/decisions/0101): a literal `AREA.CODE` that a search finds, built in the area's errors.ts only. */
const CODED_ERROR_LITERAL_CODE = {
  selector: String.raw`CallExpression[callee.name='errorCode']:not([arguments.0.type='Literal'][arguments.1.type='Literal'][arguments.1.value=/^[A-Z_]+(\.[A-Z_]+)?$/])`,
  message: "a coded error names its status and its code as literals: errorCode(404, 'AREA.CODE')",
};
const CODED_ERROR_IN_ERRORS_FILE = {
  selector: "NewExpression[callee.name='CodedError'], CallExpression[callee.name='errorCode']",
  message: "define and build coded errors in the area's errors.ts (one constant and one named factory per code)",
};

export default tseslint.config(
  { ignores: ['node_modules/', '**/node_modules/', '**/dist/', '.data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
    },
  },
  {
    files: ['dashboard/src/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['bin/**', 'bench/**', 'lib/*/bench/**', 'eslint.config.js'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ conditionNames: ['source', 'import', 'node', 'default'] })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layers }],
      // Type-only imports are erased at run time and are not counted (the rule's default).
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // Row schemas are strict, so a column the SQL selects but the row does not declare fails
    // (docs/decisions/0104-strict-rows.md).
    files: ['sql/**/*.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'z', property: 'object', message: 'declare rows with z.strictObject' }],
    },
  },
  {
    files: ['seeds/**/*.ts', 'lib/*/src/**/*.ts', 'sql/migrate.ts'],
    rules: { 'no-restricted-syntax': ['error', FILES_OF_OWN_FOLDER] },
  },
  {
    files: ['sql/**/*.ts'],
    ignores: ['sql/migrate.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_SESSION_STATE, FILES_OF_OWN_FOLDER, ROW_SCHEMA_BUILT_ONCE] },
  },
  {
    files: ['app/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        NO_SESSION_STATE,
        FILES_OF_OWN_FOLDER,
        CODED_ERROR_LITERAL_CODE,
        CODED_ERROR_IN_ERRORS_FILE,
        ROW_SCHEMA_BUILT_ONCE,
      ],
    },
  },
  {
    files: ['app/**/errors.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_SESSION_STATE, FILES_OF_OWN_FOLDER, CODED_ERROR_LITERAL_CODE, ROW_SCHEMA_BUILT_ONCE] },
  },
  {
    // No pattern of the service backtracks or moves super-linearly over what a tenant or a peer
    // sends (documents, headers, tool input): eslint-plugin-regexp's static analysis (scslre) of
    // every regex literal and RegExp call ("potential" also reports cases that depend on the input).
    files: ['app/**/*.ts', 'lib/*/src/**/*.ts'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
      'regexp/no-super-linear-move': 'error',
    },
  },
  {
    // The composition root: it alone in app/ runs the start-up seeding.
    files: [SERVER_ENTRY],
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layers.filter((zone) => zone.from !== './seeds') }],
    },
  },
);
