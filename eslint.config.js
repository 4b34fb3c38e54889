// ESLint (flat config), run by `pnpm lint` and by `pnpm test` before the tests.
//
// - @eslint/js recommended and typescript-eslint's type-checked recommended rules on the
//   TypeScript sources and tests (type information through the packages' own tsconfigs);
//   plain-JS tools and benchmarks get the untyped rules.
// - import-x/no-cycle (STYLE.md point 15): a module graph without cycles, across packages too.
//
// Rule settings are chosen for the whole repository, not per file:
// - require-await is off: an async function without await is how a function that must return a
//   Promise turns a throw into a rejection (acquire = async () => null, handlers).
// - no-unused-vars ignores the siblings of a rest element (the idiom for omitting a key).
// - prefer-promise-reject-errors allows rethrowing an unknown caught value (reject(e) in catch).
// - tests turn off the no-unsafe-* family and no-explicit-any: they parse JSON output (any by
//   nature) and feed hostile values on purpose.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const TS = ['packages/*/src/**/*.ts', 'packages/*/test/**/*.ts', 'test/**/*.ts'];
const TESTS = ['packages/*/test/**/*.ts', 'test/**/*.ts'];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'packages/cli/kernel/**', 'packages/data/world.ipintel', 'fixtures/**', '**/*.d.ts'] },
  {
    files: ['**/*.{js,mjs,ts}'],
    extends: [js.configs.recommended],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node } },
    plugins: { 'import-x': importX },
    settings: {
      // How import-x reads the modules it follows: TypeScript sources through typescript-eslint's parser.
      'import-x/extensions': ['.ts', '.mts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.mts'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: ['packages/*/tsconfig.json', 'test/tsconfig.json'], noWarnOnMultipleProjects: true }),
      ],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: false }],
      'import-x/no-self-import': 'error',
    },
  },
  {
    // The web page's script runs in browsers, not Node.
    files: ['packages/server/src/page/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommended],
    // `const { omitted, ...rest } = x` is how a key is left out of a copy.
    rules: { '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }] },
  },
  {
    files: TS,
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
    },
  },
  {
    files: TESTS,
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
