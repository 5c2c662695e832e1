// Flat config: typescript-eslint's recommended rules over every TypeScript source in the repo,
// plus the import layers (docs/architecture.md "Layers", docs/decisions/0095-import-layers-in-lint.md).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

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
    // The composition root: it alone in app/ runs the start-up seeding.
    files: [SERVER_ENTRY],
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layers.filter((zone) => zone.from !== './seeds') }],
    },
  },
);
