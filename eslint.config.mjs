// ESLint flat config. The layers of DESIGN.md (Layout) live here, lowest first:
//   src/protocol  the typed host ⇄ webview protocol: imports nothing outside itself
//   src/core      pure (runs in Node, the CLI and tests): protocol and core only, never `vscode`
//   src/dev       the local test server: core and protocol
//   src/host      VS Code, standalone and proxy hosts: anything below; `vscode` only in src/host/vscode
//   src/cli       the `trimline` command: anything below
//   webview/      the UIs: src/protocol and their own modules only
// test/unit/architecture/layers.test.ts checks that these rules fail on a wrong import, and
// walks the whole import graph for cycles and upward imports.
import tseslint from 'typescript-eslint';

const VSCODE = { name: 'vscode', message: 'Only src/host/vscode may import vscode (DESIGN.md, Layout).' };
const upward = (layers, why) => ({ group: layers.flatMap((l) => [`**/${l}`, `**/${l}/**`]), message: why });

/** `no-restricted-imports` for one layer: `vscode` and the import groups it may not use. */
const layer = (files, patterns, paths = [VSCODE]) => ({ files, rules: { 'no-restricted-imports': ['error', { paths, patterns }] } });

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.vscode-test/**', 'bench-results/**', 'out/**', 'test/fixtures/**', 'test-results/**', 'tmp/**', '.scratch-agent/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  layer(['src/protocol/**/*.ts'], [
    { group: ['../*', '../**', 'node:*'], message: 'src/protocol imports nothing outside itself (it runs in the webviews too).' },
  ]),
  layer(['src/core/**/*.ts'], [upward(['host', 'cli', 'dev', 'webview'], 'src/core may import only src/core and src/protocol (no host, cli, dev or webview code).')]),
  layer(['src/dev/**/*.ts'], [upward(['host', 'cli', 'webview'], 'src/dev may import only src/core and src/protocol.')]),
  layer(['src/host/**/*.ts'], [upward(['cli', 'webview'], 'src/host may not import src/cli or webview code.')], []),
  layer(['src/host/!(vscode)/**/*.ts'], [upward(['cli', 'webview'], 'src/host may not import src/cli or webview code.')]),
  layer(['src/cli/**/*.ts'], [upward(['webview'], 'src/cli may not import webview code.')]),
  layer(['webview/**/*.ts'], [
    { group: ['**/src/**', '!**/src/protocol', '!**/src/protocol/**'], message: 'Webviews import only src/protocol and their own modules.' },
    { group: ['node:*'], message: 'Webviews run in a browser.' },
  ]),
  {
    files: ['src/core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-syntax': ['error', {
        selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']",
        message: 'src/core must not depend on VS Code.',
      }],
    },
  },
);
