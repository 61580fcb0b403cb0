/**
 * Cline's and Roo's text-form tool results told from the user's words, per block
 * (src/core/session/client-text.ts). The strings are the clients' own (cline/cline
 * src/core/prompts/responses.ts and src/core/task/tools/utils/ToolResultUtils.ts; RooCodeInc/Roo-Code
 * src/core/assistant-message/presentAssistantMessage.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  classifyUserBlocks,
  clientContextKind,
  isClientContext,
  supersedesContext,
} from '../../../src/core/session/client-text';
import { makeMessage } from '../../../src/core/session/log';
import { Session } from '../../../src/core/session';
import { ProxySessions } from '../../../src/core/proxy/registry';
import { isPrompt } from '../../../src/core/trimming/message-index';
import type { ContentBlockParam } from '../../../src/core/session/types';

const text = (t: string): ContentBlockParam => ({ type: 'text', text: t });
const ENV =
  '<environment_details>\n# VSCode Visible Files\nsrc/a.ts\n\n# Current Mode\nACT MODE\n</environment_details>';
const FEEDBACK = 'The user provided the following feedback:\n<feedback>\nKeep the old API too.\n</feedback>';

describe('Cline-style user messages, block by block', () => {
  it('the classic form: a header block opens a run of output blocks, ended by feedback or the environment', () => {
    const kinds = classifyUserBlocks([
      text("[read_file for 'src/a.ts'] Result:"),
      text('export const a = 1;\n'),
      text(FEEDBACK),
      text(ENV),
    ]);
    expect(kinds.map((k) => k?.toolName)).toEqual(['read_file', 'read_file', undefined, undefined]);
    expect(kinds[0]?.target).toBe('src/a.ts');
  });

  it('the one-block form (header and output together), errors and the skipped-tool answer are output', () => {
    const kinds = classifyUserBlocks([
      text("[execute_command for 'npm test'] Result:\nCommand executed.\nOutput:\n3 passing"),
      text(
        "[read_file for 'x.ts'] Result:\nThe tool execution failed with the following error:\n<error>\nENOENT\n</error>",
      ),
      text(
        'Tool [write_to_file] was not executed because a tool has already been used in this message. Only one tool may be used per message.',
      ),
      text('[attempt_completion] Result:\nThe user denied this operation.'),
      text(ENV),
    ]);
    expect(kinds.map((k) => k?.toolName)).toEqual([
      'execute_command',
      'read_file',
      'write_to_file',
      'attempt_completion',
      undefined,
    ]);
  });

  it("a block that carries the user's words is theirs, whole, even behind a header", () => {
    const kinds = classifyUserBlocks([
      text(
        "[write_to_file for 'a.ts'] Result:\nThe user denied this operation and provided the following feedback:\n<feedback>\nnot this file\n</feedback>",
      ),
      text("[ask_followup_question for 'Which runner?'] Result:\n<answer>\nvitest\n</answer>"),
      text('[attempt_completion] Result:'),
      text(
        'The user has provided feedback on the results. Consider their input to continue the task, and then attempt completion again.\n<feedback>\nadd docs\n</feedback>',
      ),
    ]);
    expect(kinds.map((k) => k?.toolName)).toEqual([undefined, undefined, 'attempt_completion', undefined]);
  });

  it('typed text, the task, images and native tool_result blocks are never output', () => {
    const image: ContentBlockParam = {
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
    };
    const kinds = classifyUserBlocks([
      text('<task>\nFix the totals.\n</task>'),
      text('Please also look at [read_file] Result: handling'),
      image,
      { type: 'tool_result', tool_use_id: 'toolu_1', content: "[read_file for 'a'] Result:" },
      text('plain follow-up'),
    ]);
    expect(kinds).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(isClientContext(ENV)).toBe(true);
    expect(isClientContext('<task>\nx\n</task>')).toBe(false);
  });

  it('the log marks output blocks as trimmable, keeps the rest protected, and a result is not a new prompt', () => {
    const s = new Session();
    s.append('user', [text('<task>\nFix it.\n</task>'), text(ENV)]);
    s.append('assistant', [text('<read_file>\n<path>src/a.ts</path>\n</read_file>')]);
    s.append('user', [text("[read_file for 'src/a.ts'] Result:"), text('x'.repeat(400)), text(FEEDBACK), text(ENV)]);
    const m = s.messages[2];
    expect(m.blocks.map((b) => b.observation === true)).toEqual([true, true, false, false]);
    expect(m.blocks.map((b) => s.userText.reasonOf(b.id) !== undefined)).toEqual([false, false, true, true]);
    expect(isPrompt(m)).toBe(false);
    expect(isPrompt(s.messages[0])).toBe(true);
    // A Claude Code user message (no client header) stays a prompt, every block protected.
    const cc = makeMessage('c1', 0, 'user', [
      text('<system-reminder>\nCLAUDE.md\n</system-reminder>'),
      text('Refactor it.'),
    ]);
    expect(cc.blocks.some((b) => b.observation)).toBe(false);
    expect(isPrompt(cc)).toBe(true);
  });

  it('a Cline request arriving at the proxy (raw content, breakpoints on its last user messages) is told apart the same way', () => {
    const cc = { type: 'ephemeral' as const };
    const reg = new ProxySessions();
    const messages = [
      { role: 'user' as const, content: [text('<task>\nFix it.\n</task>'), text(ENV)] },
      {
        role: 'assistant' as const,
        content: [
          text('Reading.'),
          { type: 'tool_use' as const, id: 'toolu_01', name: 'read_file', input: { path: 'src/a.ts' } },
        ],
      },
      {
        role: 'user' as const,
        content: [
          text(`[read_file for 'src/a.ts'] Result:\n${'const a = 1;\n'.repeat(50)}`),
          text(FEEDBACK),
          { type: 'text' as const, text: ENV, cache_control: cc },
        ],
      },
    ];
    const { entry } = reg.match({ key: undefined, messages, model: 'claude-sonnet-4-5', now: 1 });
    const m = entry.session.messages[2];
    expect(m.blocks.map((b) => [b.observation === true, b.toolName, b.toolTarget])).toEqual([
      [true, 'read_file', 'src/a.ts'],
      [false, undefined, undefined],
      [false, undefined, undefined],
    ]);
    expect(m.blocks.map((b) => entry.session.userText.reasonOf(b.id)?.split(':')[0])).toEqual([
      undefined,
      'user text',
      "client context (Cline's, Roo's <environment_details>, Cline's task_progress block)",
    ]);
    expect(isPrompt(m)).toBe(false);
  });

  it("Cline's focus chain block is client context, restated by the next one; an environment block by the next one", () => {
    // cline/cline src/core/task/focus-chain/prompts.ts and index.ts generateFocusChainInstructions (indented headings).
    const focus =
      '\n\t\t\t\t# TODO LIST UPDATE REQUIRED - You MUST include the task_progress parameter in your NEXT tool call.';
    expect(clientContextKind('\n# task_progress RECOMMENDED\n\nWhen starting a new task…')).toBe('focus-chain');
    expect(clientContextKind(focus)).toBe('focus-chain');
    expect(clientContextKind(ENV)).toBe('environment');
    const listing = ENV.replace(
      '# Current Mode',
      '# Current Working Directory (/home/dev/app) Files\nsrc/\n\n# Current Mode',
    );
    expect(clientContextKind(listing)).toBe('environment-files');
    expect(clientContextKind('Please add a # TODO LIST to the readme')).toBeUndefined();
    expect(clientContextKind('# TODO LIST\n- [ ] ship it\nKeep this list, it is mine.')).toBeUndefined();
    expect(clientContextKind('<task>\n# TODO LIST\n</task>')).toBeUndefined();
    // The listing is restated only by a block that lists the files again.
    expect(supersedesContext('environment', 'environment')).toBe(true);
    expect(supersedesContext('environment-files', 'environment')).toBe(true);
    expect(supersedesContext('environment', 'environment-files')).toBe(false);
    expect(supersedesContext('focus-chain', 'environment')).toBe(false);
    expect(supersedesContext('focus-chain', 'focus-chain')).toBe(true);
    // A focus chain block after a result ends the result's run: it is not tool output.
    const kinds = classifyUserBlocks([text("[read_file for 'a.ts'] Result:"), text('x'), text(focus), text(ENV)]);
    expect(kinds.map((k) => k?.toolName)).toEqual(['read_file', 'read_file', undefined, undefined]);
  });

  it('an environment block stops being protected once a later message restates it; the newest stays', () => {
    const s = new Session();
    const env = (n: number): string => ENV.replace('ACT MODE', `ACT MODE ${n}`);
    s.append('user', [text('<task>\nFix it.\n</task>'), text(env(0))]);
    s.append('assistant', [text('Reading.')]);
    s.append('user', [text(FEEDBACK), text(env(1))]);
    const [, second] = [s.messages[0], s.messages[2]];
    expect(s.userText.reasonOf(second.blocks[1].id)).toMatch(/^client context/);
    s.append('assistant', [text('Done.')]);
    s.append('user', [text('Thanks, one more thing.'), text(env(2))]);
    // The first user message stays whole; the user's words stay; the restated block is no longer protected.
    expect(s.userText.reasonOf(s.messages[0].blocks[1].id)).toMatch(/^first user message/);
    expect(s.userText.reasonOf(second.blocks[0].id)).toMatch(/^user text/);
    expect(s.userText.reasonOf(second.blocks[1].id)).toBeUndefined();
    expect(s.userText.reasonOf(s.messages[4].blocks[1].id)).toMatch(/^client context/);
  });
});
