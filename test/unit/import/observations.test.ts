/**
 * Observations of thought-action agent loops (SWE-agent without function calling,
 * mini-swe-agent): marked by the importer from the recording's own structure, not protected
 * as the user's words, trimmed like tool results; nothing else is marked.
 */
import fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayAll } from '../../../src/core/engine';
import { importTranscript, parseTranscript, sessionFromImport } from '../../../src/core/import';
import { PROTECTED_REASON, protectedReason } from '../../../src/core/session/user-text';
import type { ImportedSession } from '../../../src/core/session/types';
import { journalPath, loadJournal, openJournal } from '../../../src/core/store';
import { MessageIndex } from '../../../src/core/trimming/message-index';
import { actionWord } from '../../../src/core/trimming/observation';
import { TRIM_MARKER } from '../../../src/core/trimming/summary-text';
import { TokenEstimator } from '../../../src/core/tokens';
import { tempDir } from '../store/helpers';
import { mClaude, TRANSCRIPTS } from './helpers';

const SWE_AGENT_0X = path.join(TRANSCRIPTS, 'mit-samples', 'sweagent_gpt4_pydicom-1458.traj');

const parse = (v: unknown, file = 'chat.json'): ImportedSession => parseTranscript(JSON.stringify(v), file);
const marks = (s: ImportedSession): boolean[] => s.messages.map((m) => m.meta.observation === true);
const OUT = '<returncode>0</returncode>\n<output>\nok\n</output>';

describe('observations: what the importer marks', () => {
  it('SWE-agent 1.x thought-action: an observation answering an action is marked; the task and demonstrations are not', () => {
    const s = parse(
      {
        history: [
          { role: 'system', content: 'SETTING: …', message_type: 'system_prompt', agent: 'main' },
          {
            role: 'user',
            content: 'Demo: how it is done',
            message_type: 'demonstration',
            is_demo: true,
            agent: 'main',
          },
          { role: 'user', content: 'Fix the issue.', message_type: 'observation', agent: 'main' },
          {
            role: 'assistant',
            content: 'Look.\n```\nls\n```',
            thought: 'Look.',
            action: 'ls',
            message_type: 'action',
            agent: 'main',
          },
          { role: 'user', content: 'a.py b.py', message_type: 'observation', agent: 'main' },
          {
            role: 'assistant',
            content: 'Open it.\n```\nopen a.py\n```',
            thought: 'Open it.',
            action: 'open a.py',
            message_type: 'action',
            agent: 'main',
          },
          { role: 'user', content: '[File: a.py]\n1:x = 1', message_type: 'observation', agent: 'main' },
        ],
      },
      'run.traj',
    );
    expect(s.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(marks(s)).toEqual([false, false, true, false, true]);
    expect(s.messages[2].blocks[0].observation).toBe(true);
    expect(s.messages[0].blocks.some((b) => b.observation)).toBe(false);
  });

  it('SWE-agent: demonstration exchanges (is_demo) are never marked, even after a demo action', () => {
    const s = parse({
      history: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'demo task', is_demo: true },
        { role: 'assistant', content: 'demo thought', action: 'ls', is_demo: true },
        { role: 'user', content: 'demo output', is_demo: true },
        { role: 'user', content: 'Fix the issue.' },
        { role: 'assistant', content: 'thought', action: 'ls' },
        { role: 'user', content: 'real output' },
      ],
    });
    expect(marks(s)).toEqual([false, false, false, false, true]);
  });

  it('mini-swe-agent with its trajectory_format: a user message after exactly one action block is marked', () => {
    const s = parse({
      trajectory_format: 'mini-swe-agent-1',
      messages: [
        { role: 'system', content: 'You are a helpful assistant.' },
        { role: 'user', content: 'Solve the issue.' },
        { role: 'assistant', content: 'Look.\n```bash\nls\n```' },
        { role: 'user', content: 'a.py' },
        { role: 'assistant', content: 'Two at once:\n```bash\nls\n```\n```bash\npwd\n```' },
        { role: 'user', content: 'Please always provide EXACTLY ONE action.' },
        { role: 'assistant', content: 'Sorry.\n```bash\npwd\n```' },
        { role: 'user', content: OUT },
      ],
    });
    // The format error answers no single action: it stays protected (only what the structure says is marked).
    expect(marks(s)).toEqual([false, false, true, false, false, false, true]);
  });

  it('a plain OpenAI chat is never marked, even with bash blocks', () => {
    const s = parse([
      { role: 'system', content: 'Be helpful.' },
      { role: 'user', content: 'How do I list files?' },
      { role: 'assistant', content: 'Use:\n```bash\nls\n```' },
      { role: 'user', content: 'And hidden ones?' },
      { role: 'assistant', content: '```bash\nls -a\n```' },
    ]);
    expect(marks(s)).toEqual([false, false, false, false]);
  });

  it('a user message that merges an observation with other text loses the mark', () => {
    const s = parse({
      history: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'Fix the issue.' },
        { role: 'assistant', content: 'thought', action: 'ls' },
        { role: 'user', content: 'a.py' },
        { role: 'system', content: 'A later system note.' },
        { role: 'assistant', content: 'thought', action: 'pwd' },
        { role: 'user', content: '/repo' },
      ],
    });
    expect(marks(s)).toEqual([false, false, false, false, true]);
  });

  it('Claude Code imports get no marks; user text protection is unchanged', () => {
    for (const name of ['343e3472', 'ff33b5b0']) {
      const imp = importTranscript(mClaude(name));
      const session = sessionFromImport(imp);
      let userText = 0;
      for (const m of session.messages) {
        expect(m.meta.observation).toBeUndefined();
        for (const b of m.blocks) {
          expect(b.observation).toBeUndefined();
          if (m.role === 'user' && b.param.type === 'text' && b.param.text.trim()) {
            userText++;
            expect([PROTECTED_REASON.text, PROTECTED_REASON.first]).toContain(session.userText.reasonOf(b.id));
          }
        }
      }
      expect(userText).toBeGreaterThan(0);
    }
  });
});

describe('observations: protection, rounds, trimming', () => {
  it('an observation block is not protected, unless it opens the log (the first user message stays whole)', () => {
    const s = sessionFromImport(importTranscript(SWE_AGENT_0X));
    const obs = s.messages[2];
    expect(obs.meta.observation).toBe(true);
    expect(s.userText.reasonOf(obs.blocks[0].id)).toBeUndefined();
    expect(protectedReason(obs, obs.blocks[0], true)).toBe(PROTECTED_REASON.first);
    for (const b of s.messages[0].blocks) expect(s.userText.reasonOf(b.id)).toBe(PROTECTED_REASON.first);
  });

  it('observations continue the loop (no prompt) and form rounds with the action before them', () => {
    const s = sessionFromImport(importTranscript(SWE_AGENT_0X));
    const index = new MessageIndex(s, new TokenEstimator());
    index.update();
    expect(index.prompts).toEqual([0]);
    expect(index.rounds).toHaveLength(11);
    expect(index.rounds[0]).toMatchObject({
      assistantPos: 1,
      resultPos: 2,
      toolUseIds: [],
      observationIds: [s.messages[2].blocks[0].id],
    });
    expect(actionWord(s.messages[1])).toBe('create');
    expect(actionWord(s.messages[0])).toBeUndefined();
  });

  it('default summarizes old observations as text in their user message, named by the action', () => {
    const imp = importTranscript(SWE_AGENT_0X);
    const engine = replayAll(imp, { strategy: 'default' });
    const trims = engine.session.allOverlays().filter((o) => o.kind === 'trim');
    expect(trims.length).toBeGreaterThan(0);
    for (const o of trims) {
      if (o.kind !== 'trim') continue;
      const block = engine.session.block(o.blockId)!;
      expect(block.observation).toBe(true);
      expect(o.reason).toMatch(/^(create|edit|python|find_file|open|rm|observation) observation older than/);
      expect(o.text.startsWith(TRIM_MARKER)).toBe(true);
      const pos = engine.session.position(block.messageId)!;
      const sent = engine.session.resolveMessage(pos).blocks[block.index].sent;
      expect(sent).toEqual({ type: 'text', text: o.text });
    }
  });

  it('the mark survives the journal', () => {
    const dir = tempDir();
    try {
      const journal = openJournal(dir, 'obs');
      const s = sessionFromImport(importTranscript(SWE_AGENT_0X));
      journal.attach(s);
      journal.close();
      const loaded = loadJournal(journalPath(dir, 'obs')).session;
      expect(loaded.messages.map((m) => m.meta.observation === true)).toEqual(
        s.messages.map((m) => m.meta.observation === true),
      );
      expect(loaded.messages[2].blocks[0].observation).toBe(true);
      expect(loaded.userText.reasonOf(loaded.messages[2].blocks[0].id)).toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
