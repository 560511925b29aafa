// ESLint (flat config) for floe. `npm run lint` runs it together with `prettier --check`; formatting is
// Prettier's job, so this holds no style rules.
//
// typescript-eslint's `recommended` set, without type information: the type-aware set costs ~45 s of CPU on
// the 2-core CI machine (it builds the whole TypeScript program again after `tsc`), the plain set ~13 s.
// `npm run lint:types` (FLOE_LINT_TYPES=1) adds the few type-aware rules that catch real bugs — promises that
// are never awaited or awaited by mistake — for a run by hand.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import floe from './scripts/eslint/layering.js';

const typeAware = process.env.FLOE_LINT_TYPES === '1';

export default tseslint.config(
  // what .gitignore keeps out of the repository (build output, caches, scratch and benchmark work trees)
  {
    ignores: [
      'dist/**',
      '.cache/**',
      '.venv/**',
      'warehouse/**',
      'tmp/**',
      '.scratch/**',
      '**/.work/**',
      'coverage/**',
      // the native codec's cargo output if built in place (scripts/build-native.mjs builds into the cache)
      'native/**/target/**',
    ],
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    plugins: { floe },
    rules: {
      // one-way dependencies between folders (scripts/eslint/layering.js)
      'floe/layering': 'error',
      // `==` only against null/undefined (one check for both); anything else is a coercion bug waiting
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // `_name` marks a deliberately unused parameter or a property dropped by destructuring
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  typeAware
    ? {
        // the files tsconfig.check.json type-checks (scripts/*.ts are outside that program)
        files: [
          'src/**/*.ts',
          'connectors/**/*.ts',
          'model/**/*.ts',
          'util/**/*.ts',
          'bench/**/*.ts',
          'test/**/*.ts',
          'integration/**/*.ts',
        ],
        languageOptions: {
          parserOptions: { project: ['./tsconfig.check.json'], tsconfigRootDir: import.meta.dirname },
        },
        rules: {
          '@typescript-eslint/no-floating-promises': 'error',
          '@typescript-eslint/no-misused-promises': 'error',
          '@typescript-eslint/await-thenable': 'error',
        },
      }
    : {},
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
