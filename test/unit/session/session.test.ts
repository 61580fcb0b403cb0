import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/core/session';

function sample(): Session {
  const s = new Session();
  s.append('user', 'read the config', {}, 'u0');
  s.append('assistant', [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.json' } }], {}, 'a0');
  s.append('user', [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x'.repeat(500) }], {}, 'u1');
  s.append('assistant', 'done', {}, 'a1');
  return s;
}
const base = { author: 'user' as const, reason: 'test', callIndex: 0, tokensBefore: 10, tokensAfter: 1 };

describe('Session log and overlays', () => {
  it('gives blocks stable ids and tool names', () => {
    const s = sample();
    expect(s.messages.map((m) => m.id)).toEqual(['u0', 'a0', 'u1', 'a1']);
    expect(s.messages[2].blocks[0].id).toBe('u1.0');
    expect(s.messages[2].blocks[0].toolName).toBe('read_file');
    expect(s.toolResultBlockId('toolu_1')).toBe('u1.0');
  });

  it('ignores duplicate message ids (journal replay never doubles history)', () => {
    const s = sample();
    s.append('user', 'again', {}, 'u0');
    expect(s.messages).toHaveLength(4);
  });

  it('trim then restore returns the original bytes exactly', () => {
    const s = sample();
    const before = JSON.stringify(s.resolveMessage(2).blocks[0].sent);
    const r0 = s.revision('u1');
    const o = s.addOverlay({ ...base, kind: 'trim', blockId: 'u1.0', text: '[trimmed]' });
    const trimmed = s.resolveMessage(2).blocks[0];
    expect(trimmed.state).toBe('trimmed');
    expect(trimmed.sent).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1', content: '[trimmed]' });
    expect(s.revision('u1')).toBeGreaterThan(r0);
    s.removeOverlay(o.id);
    expect(JSON.stringify(s.resolveMessage(2).blocks[0].sent)).toBe(before);
    expect(s.resolveMessage(2).blocks[0].state).toBe('verbatim');
  });

  it('pins win over strategies and the agent, not over the user', () => {
    const s = sample();
    s.addOverlay({ ...base, kind: 'pin', blockId: 'u1.0' });
    expect(() => s.addOverlay({ ...base, author: 'strategy:x', kind: 'trim', blockId: 'u1.0', text: 't' })).toThrow(
      /pinned/,
    );
    expect(() => s.addOverlay({ ...base, author: 'agent', kind: 'prune', messageId: 'u1', blockId: 'u1.0' })).toThrow(
      /pinned/,
    );
    // A message-level prune by a strategy does not hide a pinned block either.
    const windowPrune = s.addOverlay({ ...base, author: 'strategy:w', kind: 'prune', messageId: 'u1' });
    expect(s.resolveMessage(2).blocks[0].state).toBe('pinned');
    // The user's own trim replaces the pin; the window's prune then applies again.
    s.addOverlay({ ...base, kind: 'trim', blockId: 'u1.0', text: 'mine' });
    expect(s.isPinned('u1.0')).toBe(false);
    expect(s.resolveMessage(2).blocks[0].state).toBe('pruned');
    s.removeOverlay(windowPrune.id);
    expect(s.resolveMessage(2).blocks[0].state).toBe('trimmed');
  });

  it("a user pin replaces the user's own earlier trim (latest intent wins)", () => {
    const s = sample();
    s.addOverlay({ ...base, kind: 'trim', blockId: 'u1.0', text: 'short' });
    s.addOverlay({ ...base, kind: 'pin', blockId: 'u1.0' });
    const b = s.resolveMessage(2).blocks[0];
    expect(b.state).toBe('pinned');
    expect(b.sent).toBe(s.messages[2].blocks[0].param);
  });

  it('a pin protects both halves of a tool pair from strategies', () => {
    const s = sample();
    s.addOverlay({ ...base, kind: 'pin', blockId: 'u1.0' });
    expect(s.isPinned('a0.0')).toBe(true);
    expect(() =>
      s.addOverlay({ ...base, author: 'strategy:x', kind: 'prune', messageId: 'a0', blockId: 'a0.0' }),
    ).toThrow(/pinned/);
    s.addOverlay({ ...base, author: 'strategy:tool-pruning', kind: 'prune', messageId: 'a0' });
    expect(s.resolveMessage(1).blocks[0].state).toBe('pinned');
    expect(s.resolveMessage(1).blocks[0].sent).toBe(s.messages[1].blocks[0].param);
  });

  it('summary covers a range; a strategy summary over a pinned block is inactive', () => {
    const s = sample();
    const sum = s.addOverlay({
      ...base,
      author: 'strategy:c',
      kind: 'summary',
      fromMessageId: 'a0',
      toMessageId: 'u1',
      text: 'S',
    });
    expect(s.resolveMessage(1).summaryStart?.id).toBe(sum.id);
    expect(s.resolveMessage(2).blocks[0].state).toBe('summarized');
    s.addOverlay({ ...base, kind: 'pin', blockId: 'u1.0' });
    expect(s.resolveMessage(1).summaryStart).toBeUndefined();
    expect(s.resolveMessage(2).blocks[0].state).toBe('pinned');
  });

  it('user restore removes strategy overlays and exempts the block', () => {
    const s = sample();
    s.addOverlay({ ...base, author: 'strategy:x', kind: 'trim', blockId: 'u1.0', text: 't' });
    const removed = s.restore('u1.0', 'user');
    expect(removed).toHaveLength(1);
    expect(s.isUserRestored('u1.0')).toBe(true);
    expect(s.resolveMessage(2).blocks[0].state).toBe('verbatim');
  });

  it('rejects overlays on unknown targets', () => {
    const s = sample();
    expect(() => s.addOverlay({ ...base, kind: 'trim', blockId: 'nope.0', text: 't' })).toThrow(/unknown block/);
  });
});
