// ESLint flat config. The floor plan (the layers, and the floors inside src/core) lives in
// eslint-rules/layers.mjs and is enforced by its rule `house/layers`: every import points down the plan,
// dynamic `import()` and `require` included, `vscode` only in src/host/vscode, and every source file sits
// on a floor. test/unit/architecture/ checks that the rule fails on wrong imports and walks the whole
// import graph with the same table. See docs/ARCHITECTURE.md.
import tseslint from 'typescript-eslint';
import house from './eslint-rules/layers.mjs';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.vscode-test/**',
      'bench-results/**',
      'out/**',
      'test/fixtures/**',
      'test-results/**',
      'tmp/**',
      '.scratch-agent/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: ['src/**/*.ts', 'webview/**/*.ts'], plugins: { house }, rules: { 'house/layers': 'error' } },
  { files: ['src/core/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'error' } },
);
