// ESLint flat config. The one architectural rule that matters most lives here:
// src/core is pure (runs in Node, the CLI and tests) and must never import `vscode`.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.vscode-test/**', 'bench-results/**', 'out/**', 'test/fixtures/**', 'test-results/**', 'tmp/**', '.scratch-agent/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'src/core must not depend on VS Code; put editor code in src/host/vscode.' }],
        patterns: [{ group: ['**/host/**'], message: 'src/core must not import host code.' }],
      }],
      'no-restricted-syntax': ['error', {
        selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']",
        message: 'src/core must not depend on VS Code.',
      }],
    },
  },
);
