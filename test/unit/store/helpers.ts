/** Fixtures for the store tests: temp dirs and a session with every kind of record. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Journal } from '../../../src/core/store';
import { Session } from '../../../src/core/session';

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-store-'));
}

/** Messages and overlays of a session as JSON, for exact comparison. */
export function snapshot(s: Session): { messages: string; overlays: string; calls: string; system: string } {
  return {
    messages: JSON.stringify(s.messages),
    overlays: JSON.stringify(s.allOverlays()),
    calls: JSON.stringify(s.calls),
    system: JSON.stringify([s.system, s.tools, s.model]),
  };
}

/**
 * Build a realistic session while `journal` (if given) is attached: a prompt,
 * tool calls and results, a pin, strategy and agent trims, a restore, a
 * summary, a prune, and recorded calls.
 */
export function buildSession(journal?: Journal): Session {
  const s = new Session({
    system: 'You are a coding agent.',
    model: 'claude-test',
    tools: [{ name: 'read_file', input_schema: { type: 'object' } }],
  });
  journal?.attach(s);
  const call = (at: number): void => {
    const rec = s.recordCall({
      at,
      epochStart: 0,
      model: 'claude-test',
      usage: { input_tokens: 10 * at, output_tokens: 5 },
    });
    journal?.recordCall(rec);
  };
  s.append('user', 'Fix the failing test in   src/app.ts\nplease');
  call(1);
  s.append(
    'assistant',
    [
      { type: 'text', text: 'Reading files.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/app.ts' } },
      { type: 'tool_use', id: 'toolu_2', name: 'read_file', input: { path: 'src/b.ts' } },
    ],
    { model: 'claude-test', apiMessageId: 'msg_1' },
  );
  s.append('user', [
    { type: 'tool_result', tool_use_id: 'toolu_1', content: 'x'.repeat(500) },
    {
      type: 'tool_result',
      tool_use_id: 'toolu_2',
      content: [{ type: 'text', text: 'y'.repeat(300) }],
      is_error: false,
    },
  ]);
  call(3);
  s.append('assistant', [{ type: 'text', text: 'Found it.' }]);
  const r1 = s.toolResultBlockId('toolu_1')!;
  const r2 = s.toolResultBlockId('toolu_2')!;
  const common = { callIndex: 1, tokensBefore: 100, tokensAfter: 10 };
  s.addOverlay({ kind: 'pin', blockId: r2, author: 'user', reason: 'important', ...common });
  s.addOverlay({
    kind: 'trim',
    blockId: r1,
    text: 'short',
    author: 'strategy:old-results',
    reason: 'old',
    ...common,
    id: 'ov_strategy_r1',
  });
  s.addOverlay({
    kind: 'trim',
    blockId: r1,
    text: 'agent summary',
    author: 'agent',
    reason: 'agent: summary',
    ...common,
  });
  s.restore(r1, 'user');
  // A strategy reuses its deterministic id after the restore: the journal must keep both adds.
  s.addOverlay({
    kind: 'trim',
    blockId: r1,
    text: 'short again',
    author: 'strategy:old-results',
    reason: 'old',
    ...common,
    id: 'ov_strategy_r1',
  });
  s.addOverlay({
    kind: 'summary',
    fromMessageId: s.messages[0].id,
    toMessageId: s.messages[1].id,
    text: 'summary',
    author: 'strategy:summarize',
    reason: 'long',
    ...common,
  });
  s.addOverlay({ kind: 'prune', messageId: s.messages[3].id, author: 'strategy:prune', reason: 'noise', ...common });
  s.append('user', 'Thanks, now run the tests.');
  return s;
}
