import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../../../src/dev/server';

const schema = (props: Record<string, string>, required: string[]): Anthropic.Tool.InputSchema => ({
  type: 'object',
  properties: Object.fromEntries(Object.entries(props).map(([k, d]) => [k, { type: 'string', description: d }])),
  required,
});
const TOOLS: Anthropic.Tool[] = [
  { name: 'read_file', description: 'Read a file', input_schema: schema({ path: 'file path' }, ['path']) },
  { name: 'list_files', description: 'List files', input_schema: schema({ path: 'directory' }, []) },
  {
    name: 'search',
    description: 'Search the workspace',
    input_schema: schema({ pattern: 'regex', path: 'where' }, ['pattern']),
  },
  {
    name: 'edit_file',
    description: 'Edit a file',
    input_schema: schema({ path: 'p', old_string: 'o', new_string: 'n' }, ['path', 'old_string', 'new_string']),
  },
  {
    name: 'write_file',
    description: 'Write a file',
    input_schema: schema({ path: 'p', content: 'c' }, ['path', 'content']),
  },
  { name: 'run_command', description: 'Run a command', input_schema: schema({ command: 'c' }, ['command']) },
  {
    name: 'trim_tool_result',
    description: 'Trim an old tool result',
    input_schema: schema({ tool_use_id: 'id' }, ['tool_use_id']),
  },
];

const FILES: Record<string, string> = {
  'README.md': '# Trimline\nA coding agent that shows what the model sees.\n',
  'package.json': '{ "name": "trimline" }\n',
  'src/cache/planner.ts': `// Cache planner: places at most four breakpoints.\n${'export const x = 1;\n'.repeat(400)}`,
  'src/index.ts': 'export * from "./cache/planner";\n',
};
const LISTING = [...Object.keys(FILES), 'src/cache/planner.test.ts', 'media/logo.png'].join('\n');

function execute(use: Anthropic.ToolUseBlock): Anthropic.ToolResultBlockParam {
  const input = use.input as Record<string, string>;
  const ok = (content: string): Anthropic.ToolResultBlockParam => ({
    type: 'tool_result',
    tool_use_id: use.id,
    content,
  });
  const fail = (content: string): Anthropic.ToolResultBlockParam => ({
    type: 'tool_result',
    tool_use_id: use.id,
    content,
    is_error: true,
  });
  switch (use.name) {
    case 'list_files':
      return ok(LISTING);
    case 'read_file':
      return input.path in FILES ? ok(FILES[input.path]) : fail(`ENOENT: no such file: ${input.path}`);
    case 'search':
      return ok(
        Object.entries(FILES)
          .flatMap(([f, c]) =>
            c
              .split('\n')
              .filter((l) => l.toLowerCase().includes(input.pattern))
              .map((l) => `${f}: ${l}`),
          )
          .join('\n'),
      );
    case 'trim_tool_result':
      return ok(`trimmed ${input.tool_use_id}`);
    default:
      return fail(`not allowed in this test: ${use.name}`);
  }
}

async function runAgent(
  prompt: string,
  thinking = false,
): Promise<{ rounds: string[][]; answer: string; usage: Anthropic.Usage[]; valid: boolean }> {
  const server = await startTestServer();
  try {
    const client = new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: prompt }];
    const rounds: string[][] = [];
    const usage: Anthropic.Usage[] = [];
    const system: Anthropic.TextBlockParam[] = [
      { type: 'text', text: 'You are Trimline, a careful coding agent. '.repeat(100) },
    ];
    for (let i = 0; i < 8; i++) {
      const msg = await client.messages
        .stream({
          model: 'claude-sonnet-4-6',
          max_tokens: 4096,
          system,
          tools: TOOLS,
          messages,
          cache_control: { type: 'ephemeral' },
          ...(thinking ? { thinking: { type: 'enabled' as const, budget_tokens: 1024 } } : {}),
        })
        .finalMessage();
      usage.push(msg.usage);
      messages.push({ role: 'assistant', content: msg.content as Anthropic.ContentBlockParam[] });
      const uses = msg.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
      rounds.push(uses.map((u) => u.name));
      if (msg.stop_reason !== 'tool_use') {
        const answer = msg.content
          .filter((b): b is Anthropic.TextBlock => b.type === 'text')
          .map((b) => b.text)
          .join('');
        return { rounds, answer, usage, valid: server.requests.every((r) => r.validation.ok) };
      }
      messages.push({ role: 'user', content: uses.map(execute) });
    }
    throw new Error('the demo policy did not finish');
  } finally {
    await server.close();
  }
}

describe('demo policy', () => {
  it('explores (list, parallel reads, search + trim) and answers citing what it read', async () => {
    const run = await runAgent('How does the cache planner decide where breakpoints go?');
    expect(run.valid).toBe(true);
    expect(run.rounds).toEqual([['list_files'], ['read_file', 'read_file'], ['search', 'trim_tool_result'], []]);
    expect(run.answer).toContain('`src/cache/planner.ts`');
    expect(run.answer).toMatch(/Searching for "breakpoints"/);
    expect(run.answer).toContain('Summary:');
    // The automatic cache breakpoint makes every later call read the previous prefix.
    expect(run.usage[0].cache_creation_input_tokens).toBeGreaterThan(1024);
    for (const u of run.usage.slice(1)) expect(u.cache_read_input_tokens).toBeGreaterThan(1024);
  });

  it('is deterministic and reports tool errors', async () => {
    const prompt = 'Please explain src/cache/missing.ts and the README.md';
    const a = await runAgent(prompt);
    const b = await runAgent(prompt);
    expect(a.answer).toBe(b.answer);
    expect(a.answer).toContain(
      '`read_file` failed for `src/cache/missing.ts`: ENOENT: no such file: src/cache/missing.ts.',
    );
    expect(a.answer).toContain('`README.md`');
  });

  it('thinks first when thinking is enabled, and its thinking blocks round-trip', async () => {
    const run = await runAgent('What does src/index.ts export?', true);
    expect(run.valid).toBe(true);
    expect(run.answer).toContain('`src/index.ts`');
  });
});
