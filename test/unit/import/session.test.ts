import { describe, expect, it } from 'vitest';
import {
  importTranscript,
  parseTranscript,
  registerImporter,
  registeredImporters,
  sessionFromImport,
} from '../../../src/core/import';
import type { TranscriptImporter } from '../../../src/core/import';
import { mClaude } from './helpers';

describe('sessionFromImport', () => {
  it('builds a Session with the same log and calls', () => {
    const imp = importTranscript(mClaude('3cfce0ff'));
    const s = sessionFromImport(imp);
    expect(s.messages.map((m) => m.id)).toEqual(imp.messages.map((m) => m.id));
    expect(s.messages.every((m, i) => m === imp.messages[i])).toBe(true);
    expect(s.calls).toEqual(imp.calls);
    expect(s.model).toBe(imp.model);
    // tool lookups work on the session
    const result = s.messages.flatMap((m) => m.blocks).find((b) => b.kind === 'tool_result');
    expect(result?.toolUseId).toBeDefined();
    expect(s.toolName(result!.toolUseId!)).toBe(result!.toolName);
    expect(s.toolUseBlockId(result!.toolUseId!)).toBeDefined();
    expect(s.resolveMessage(0).blocks[0].state).toBe('verbatim');
  });

  it('carries system, tools and model of an Anthropic JSON object', () => {
    const body = {
      model: 'claude-haiku-4-5',
      system: 'Be brief.',
      tools: [{ name: 't', input_schema: { type: 'object' } }],
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
    };
    const s = sessionFromImport(parseTranscript(JSON.stringify(body), 'r.json'));
    expect(s.system).toBe('Be brief.');
    expect(s.tools?.[0].name).toBe('t');
    expect(s.model).toBe('claude-haiku-4-5');
    expect(s.calls).toEqual([
      {
        index: 0,
        at: 1,
        epochStart: 0,
        apiMessageId: undefined,
        model: undefined,
        timestamp: undefined,
        usage: undefined,
      },
    ]);
  });
});

describe('importer registry (extension point for the trimline journal)', () => {
  it('lists the built-in formats in detection order', () => {
    expect(registeredImporters().map((i) => i.format)).toEqual([
      'claude-code',
      'cline',
      'openhands',
      'openai-chat',
      'anthropic-json',
    ]);
  });

  it('a registered importer is detected first and named in the not-a-transcript error', () => {
    const journal: TranscriptImporter = {
      format: 'trimline-journal',
      label: 'Trimline journal',
      expects: 'a "trimline-journal" header line',
      detect: (input) => input.text.startsWith('{"trimline-journal"'),
      parse: (input) => ({ format: 'trimline-journal', file: input.file, messages: [], calls: [], issues: [] }),
    };
    const remove = registerImporter(journal, { first: true });
    try {
      expect(parseTranscript('{"trimline-journal":1}\n', 'j.jsonl').format).toBe('trimline-journal');
      expect(() => parseTranscript('{"x":1}', 'n.json')).toThrow(
        /not a Trimline journal, Claude Code JSONL, Cline, OpenHands, OpenAI chat or Anthropic JSON transcript/,
      );
    } finally {
      remove();
    }
    expect(registeredImporters().map((i) => i.format)).toEqual([
      'claude-code',
      'cline',
      'openhands',
      'openai-chat',
      'anthropic-json',
    ]);
  });
});
