// Flat config: typescript-eslint's recommended rules over every TypeScript source in the repo.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

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
);
