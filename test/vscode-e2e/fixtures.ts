/** The workspace and the scripted model turns of the end-to-end test. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScriptedTurn } from '../../src/dev/types';

export const API_KEY = 'sk-ant-e2e-0123456789abcdef';

export const GREET_BEFORE = `export function greet(name: string): string {\n  return 'Hello, ' + name;\n}\n`;
export const GREET_AFTER = `export function greet(name: string): string {\n  return \`Hello, \${name}!\`;\n}\n`;

/** A small project; `many.ts` makes the search result long enough to be worth trimming. */
export function makeWorkspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-ws-'));
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'greet.ts'), GREET_BEFORE);
  fs.writeFileSync(
    path.join(dir, 'src', 'main.ts'),
    `import { greet } from './greet';\n\nconsole.log(greet('world'));\n`,
  );
  const calls = Array.from(
    { length: 30 },
    (_, i) => `export const greeting${i} = greet('user ${i}'); // greet call ${i}`,
  ).join('\n');
  fs.writeFileSync(path.join(dir, 'src', 'many.ts'), `import { greet } from './greet';\n\n${calls}\n`);
  fs.writeFileSync(path.join(dir, 'README.md'), '# Demo\n\nA tiny project for the Trimline end-to-end test.\n');
  return dir;
}

export const CHANGES = '# Changes\n\n- greet() uses a template literal and ends with an exclamation mark.\n';

export const FIRST_PROMPT = 'Make greet() use a template literal and add an exclamation mark.';
export const SECOND_PROMPT = 'Thanks. Anything else to change?';
export const AGENT_SUMMARY = 'greet is defined in src/greet.ts and called in src/main.ts and 30 times in src/many.ts';

/**
 * The multi-tool session: read_file, search, trim_tool_result (the agent trims its own
 * search result), edit_file, write_file (a new file in a new folder) and run_command (each
 * approved by the user), a final answer with Markdown that must be rendered safely; then
 * the answer to the second prompt.
 */
export function scriptedTurns(): ScriptedTurn[] {
  return [
    {
      content: [
        { type: 'text', text: 'Let me read `src/greet.ts` first.' },
        { type: 'tool_use', id: 'toolu_read', name: 'read_file', input: { path: 'src/greet.ts' } },
      ],
    },
    {
      content: [
        { type: 'text', text: 'Now where is it used?' },
        { type: 'tool_use', id: 'toolu_search', name: 'search', input: { query: 'greet' } },
      ],
    },
    {
      content: [
        { type: 'text', text: 'That search result is long; I keep only what I need.' },
        {
          type: 'tool_use',
          id: 'toolu_trim',
          name: 'trim_tool_result',
          input: { tool_use_id: 'toolu_search', summary: AGENT_SUMMARY },
        },
      ],
    },
    {
      content: [
        { type: 'text', text: 'Editing the function.' },
        {
          type: 'tool_use',
          id: 'toolu_edit',
          name: 'edit_file',
          input: {
            path: 'src/greet.ts',
            old_text: "  return 'Hello, ' + name;",
            new_text: '  return `Hello, ${name}!`;',
          },
        },
      ],
    },
    {
      content: [
        {
          type: 'tool_use',
          id: 'toolu_write',
          name: 'write_file',
          input: { path: 'docs/CHANGES.md', content: CHANGES },
        },
      ],
    },
    {
      content: [
        {
          type: 'tool_use',
          id: 'toolu_cmd',
          name: 'run_command',
          input: { command: 'cat src/greet.ts docs/CHANGES.md' },
        },
      ],
    },
    {
      content: [
        {
          type: 'text',
          text:
            'Done. **greet** now uses a *template literal*:\n\n```ts\nreturn `Hello, ${name}!`;\n```\n\n' +
            '- `src/greet.ts` changed\n- callers unchanged\n\n' +
            'See [the docs](https://example.com/docs) (not [this](javascript:alert(1))). <img src=x onerror="window.__xss=1"> <script>window.__xss=2</script>',
        },
      ],
    },
    { content: [{ type: 'text', text: 'No, that is all: the change is complete.' }] },
  ];
}

/** Restricted mode: the model tries to edit; the tool must refuse. */
export function restrictedTurns(): ScriptedTurn[] {
  return [
    {
      content: [
        {
          type: 'tool_use',
          id: 'toolu_edit_r',
          name: 'edit_file',
          input: { path: 'src/greet.ts', old_text: "'Hello, '", new_text: "'Hi, '" },
        },
      ],
    },
    { content: [{ type: 'text', text: 'I cannot edit files here: the workspace is in Restricted Mode.' }] },
  ];
}
