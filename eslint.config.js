// ESLint on the whole repository (`npm run lint`, part of `npm test`): ESLint's and typescript-eslint's
// recommended rules; each rule set aside below says why.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test/typed-client/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Terminal output and input checks match control characters (escape sequences, NUL) on purpose.
      'no-control-regex': 'off',
      // A leading underscore, or the rest of a destructuring, names what is left out on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Kysely's own advice for migrations: typed against no schema (`Kysely<any>`), since they stay frozen while
    // the schema's types move on.
    files: ['src/store/migrations/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests read the API's JSON answers untyped (`any`) and assert on them.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
