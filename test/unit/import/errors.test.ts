import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ImportError, importTranscript, parseTranscript } from '../../../src/core/import';
import { TRANSCRIPTS, mClaude } from './helpers';

/** Run `fn`, expect an ImportError, and check the message is one clean line. */
function importError(fn: () => unknown): ImportError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(ImportError);
  const err = caught as ImportError;
  expect(err.message).not.toMatch(/\n/);
  expect(err.message).not.toMatch(/\s+at\s+\S+\s+\(/); // no stack frames
  expect(err.message.startsWith(`${err.file}: `)).toBe(true);
  return err;
}

const tmp = mkdtempSync(path.join(tmpdir(), 'trimline-import-'));

describe('ImportError: files unusable as a whole', () => {
  it('empty and whitespace-only files', () => {
    for (const text of ['', '  \n\n\t\n']) {
      const err = importError(() => parseTranscript(text, 'empty.jsonl'));
      expect(err.message).toBe('empty.jsonl: empty file, not a transcript');
    }
  });

  it('binary files, read from disk', () => {
    const file = path.join(tmp, 'image.png');
    writeFileSync(file, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
    const err = importError(() => importTranscript(file));
    expect(err.file).toBe(file);
    expect(err.line).toBe(1);
    expect(err.message).toBe(`${file}: line 1: binary file, not a transcript`);
  });

  it('JSON that is none of the formats names every format and what was expected', () => {
    const err = importError(() => parseTranscript('{"foo": 1}', 'transcript.json'));
    expect(err.line).toBe(1);
    expect(err.message).toMatch(
      /^transcript\.json: line 1: not a Claude Code JSONL, Cline, OpenHands, OpenAI chat or Anthropic JSON transcript \(expected .+\)$/,
    );
  });

  it('JSON lines of a foreign format are "not a transcript", not a syntax error', () => {
    const err = importError(() => parseTranscript('{"event":"start"}\n{"event":"stop"}\n', 'events.jsonl'));
    expect(err.message).toMatch(/^events\.jsonl: line 1: not a Claude Code JSONL/);
    const array = importError(() =>
      parseTranscript('[\n{"role":"user","content":"a"},\n{"role":"assistant" "content":"b"}\n]', 'arr.json'),
    );
    expect(array.message).toMatch(/^arr\.json: line 3: invalid JSON/);
  });

  it('plain text', () => {
    const err = importError(() => parseTranscript('hello\nworld\n', 'notes.txt'));
    expect(err.message).toMatch(/^notes\.txt: line 1: not a Claude Code JSONL/);
  });

  it('corrupt JSON reports the line of the syntax error', () => {
    const text = '[\n  {"role": "user", "content": "hi"},\n  {"role": "assistant", "content": "hello"\n';
    const err = importError(() => parseTranscript(text, 'cut.json'));
    expect(err.message).toMatch(/^cut\.json: line \d+: invalid JSON/);
    expect(err.line).toBeGreaterThanOrEqual(3);
    const err2 = importError(() => parseTranscript('{"messages": [1, 2,, 3]}', 'bad.json'));
    expect(err2.line).toBe(1);
    expect(err2.message).toMatch(/^bad\.json: line 1: invalid JSON \(Unexpected token ','\), so not a/);
    const long = `{\n  "messages": [\n    {"role": "user", "content": "a long first message here"},\n    {"role": "assistant",, "content": "b"}\n  ]\n}`;
    expect(importError(() => parseTranscript(long, 'long.json')).line).toBe(4);
  });

  it('a JSONL with zero conversation lines', () => {
    const summaryOnly = importError(() => importTranscript(mClaude('e6804af6')));
    expect(summaryOnly.message).toMatch(/no user or assistant messages \(1 parseable line: 1 summary\)$/);
    const systemOnly = importError(() => importTranscript(mClaude('dae783ed')));
    expect(systemOnly.message).toMatch(/no user or assistant messages \(2 parseable lines: 2 system\)$/);
  });

  it('other agents\u2019 formats: OpenAI-style chat and OpenHands events import; an event stream without messages is refused', () => {
    const dir = path.join(TRANSCRIPTS, 'mit-samples');
    for (const f of ['mini-swe-agent_github_issue.traj.json', 'sweagent_demo_function_calling_marshmallow-1867.traj']) {
      expect(importTranscript(path.join(dir, f)).format).toBe('openai-chat');
    }
    expect(importTranscript(path.join(dir, 'openhands_basic_gui_mode.json')).format).toBe('openhands');
    const states = [{ id: 0, source: 'environment', observation: 'agent_state_changed', content: '' }];
    expect(importError(() => parseTranscript(JSON.stringify(states), 'oh.json')).message).toBe(
      'oh.json: an OpenHands event stream with no messages (no user or agent message, no tool call)',
    );
    // A system role among Anthropic blocks is still Anthropic JSON, with the hint where the system prompt belongs.
    const sys = [
      { role: 'system', content: 's' },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] },
    ];
    expect(importError(() => parseTranscript(JSON.stringify(sys), 'a.json')).message).toMatch(
      /messages\[0\]: role "system" is not "user" or "assistant"; a system prompt belongs/,
    );
  });

  it('a missing file', () => {
    const file = path.join(tmp, 'nope.jsonl');
    expect(importError(() => importTranscript(file)).message).toBe(`${file}: cannot read the file: no such file`);
  });

  it('an invalid message in a JSON transcript', () => {
    const err = importError(() => parseTranscript('[{"role":"user","content":42}]', 'x.json'));
    expect(err.message).toBe('x.json: messages[0]: content is a number, expected a string or an array of blocks');
    const err2 = importError(() => parseTranscript('{"messages": []}', 'y.json'));
    expect(err2.message).toMatch(/no messages/);
  });
});
