/** Reusing digests of messages a session's last request already carried, by comparing raw bytes. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messageDigest } from '../../../src/core/proxy/digest';
import { knownPrefix, nextPrefix } from '../../../src/core/proxy/raw-prefix';
import { ProxySessions } from '../../../src/core/proxy/registry';
import type { MessageParam } from '../../../src/core/session/types';

const cc = { type: 'ephemeral' as const };
const msg = (role: 'user' | 'assistant', text: string, marked = false): MessageParam => ({ role, content: [{ type: 'text', text, ...(marked ? { cache_control: cc } : {}) }] });
/** A Claude-Code-like body: model, then messages (the last block of the last message marked), then the rest. */
const raw = (messages: MessageParam[], markLast = true): Buffer => {
  const ms = messages.map((m, i) => (markLast && i === messages.length - 1 ? { ...m, content: (m.content as object[]).map((b) => ({ ...b, cache_control: cc })) } : m));
  return Buffer.from(JSON.stringify({ model: 'claude-sonnet-4-6', messages: ms, system: [{ type: 'text', text: 'sys "quoted" [x] {y}' }], max_tokens: 100 }));
};

describe('raw prefix', () => {
  it('the messages before the marked last one are known from one byte comparison, scanning only what is new', () => {
    const a = [msg('user', 'hi "there" [x]'), msg('assistant', 'a \\ b {c}'), msg('user', 'next')];
    const p1 = nextPrefix(raw(a), 3, undefined, 0)!;
    expect(p1.count).toBe(2);
    const b = [...a, msg('assistant', 'ok'), msg('user', 'more')];
    expect(knownPrefix(p1, raw(b))).toBe(2);
    const p2 = nextPrefix(raw(b), 5, p1, 2)!;
    expect(p2.count).toBe(4);
    expect(JSON.parse(`[${raw(b).subarray(raw(b).indexOf('[') + 1, p2.end).toString()}]`)).toEqual(b.slice(0, 4));
    // An edited earlier message: nothing is known.
    const edited = [msg('user', 'hi "there" [y]'), ...b.slice(1)];
    expect(knownPrefix(p2, raw(edited))).toBe(0);
  });

  it('a marker further back (Cline marks the last two user messages) stops the prefix before it', () => {
    const ms = [msg('user', 'a'), msg('assistant', 'b'), msg('user', 'c', true), msg('assistant', 'd'), msg('user', 'e', true)];
    expect(nextPrefix(raw(ms, false), 5, undefined, 0)!.count).toBe(2);
  });

  it('matching with raw bodies gives the same sessions and digests as without, for any history and edits', () => {
    const step = fc.record({ add: fc.integer({ min: 1, max: 3 }), edit: fc.integer({ min: -1, max: 8 }), text: fc.constantFrom('x', 'y "q"', 'z\\n[1]', '{a}'), marker: fc.boolean() });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const withRaw = new ProxySessions();
        const plain = new ProxySessions();
        let history: MessageParam[] = [];
        steps.forEach((st, k) => {
          for (let i = 0; i < st.add; i++) history.push(msg(history.length % 2 ? 'assistant' : 'user', `${st.text} ${k}.${i}`));
          if (history.length % 2 === 0) history.push(msg('user', 'go'));
          if (st.edit >= 0 && st.edit < history.length - 1) history = history.map((m, i) => (i === st.edit ? msg(m.role as 'user' | 'assistant', `${st.text} edited ${k}`) : m));
          const a = withRaw.match({ key: 'k', messages: history, model: 'm', now: k, raw: raw(history, st.marker) });
          const b = plain.match({ key: 'k', messages: history, model: 'm', now: k });
          expect(a.entry.id).toBe(b.entry.id);
          expect(a.known).toBe(b.known);
          expect(a.entry.digests).toEqual(history.map(messageDigest));
        });
      }),
      { numRuns: 300 },
    );
  });
});
