/** Reusing digests of messages a session's last request already carried, by comparing raw bytes. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messageDigest } from '../../../src/core/proxy/digest';
import { ProxyEngine } from '../../../src/core/proxy/proxy-engine';
import { elidedJson, knownPrefix, nextPrefix } from '../../../src/core/proxy/raw-prefix';
import { ProxySessions } from '../../../src/core/proxy/registry';
import type { MessageParam } from '../../../src/core/session/types';

const cc = { type: 'ephemeral' as const };
const msg = (role: 'user' | 'assistant', text: string, marked = false): MessageParam => ({
  role,
  content: [{ type: 'text', text, ...(marked ? { cache_control: cc } : {}) }],
});
/** A Claude-Code-like body: model, then messages (the last block of the last message marked), then the rest. */
const raw = (messages: MessageParam[], markLast = true): Buffer => {
  const ms = messages.map((m, i) =>
    markLast && i === messages.length - 1
      ? { ...m, content: (m.content as object[]).map((b) => ({ ...b, cache_control: cc })) }
      : m,
  );
  return Buffer.from(
    JSON.stringify({
      model: 'claude-sonnet-4-6',
      messages: ms,
      system: [{ type: 'text', text: 'sys "quoted" [x] {y}' }],
      max_tokens: 100,
    }),
  );
};

/** The history after step `k`: `add` messages appended (ending on a user turn), message `edit` rewritten. */
function grown(history: MessageParam[], st: { add: number; edit: number; text: string }, k: number): MessageParam[] {
  for (let i = 0; i < st.add; i++) history.push(msg(history.length % 2 ? 'assistant' : 'user', `${st.text} ${k}.${i}`));
  if (history.length % 2 === 0) history.push(msg('user', 'go'));
  if (st.edit < 0 || st.edit >= history.length - 1) return history;
  return history.map((m, i) => (i === st.edit ? msg(m.role as 'user' | 'assistant', `${st.text} edited ${k}`) : m));
}

describe('raw prefix', () => {
  it('the messages before the marked last one are known from one byte comparison, scanning only what is new', () => {
    const a = [msg('user', 'hi "there" [x]'), msg('assistant', 'a \\ b {c}'), msg('user', 'next')];
    const p1 = nextPrefix(raw(a), 3, undefined, 0)!;
    expect(p1.count).toBe(2);
    const b = [...a, msg('assistant', 'ok'), msg('user', 'more')];
    expect(knownPrefix(p1, raw(b))).toBe(2);
    const p2 = nextPrefix(raw(b), 5, p1, 2)!;
    expect(p2.count).toBe(4);
    expect(
      JSON.parse(
        `[${raw(b)
          .subarray(raw(b).indexOf('[') + 1, p2.end)
          .toString()}]`,
      ),
    ).toEqual(b.slice(0, 4));
    // An edited earlier message: nothing is known.
    const edited = [msg('user', 'hi "there" [y]'), ...b.slice(1)];
    expect(knownPrefix(p2, raw(edited))).toBe(0);
  });

  it('a marker further back (Cline marks the last two user messages) stops the prefix before it', () => {
    const ms = [
      msg('user', 'a'),
      msg('assistant', 'b'),
      msg('user', 'c', true),
      msg('assistant', 'd'),
      msg('user', 'e', true),
    ];
    expect(nextPrefix(raw(ms, false), 5, undefined, 0)!.count).toBe(2);
  });

  it('matching with raw bodies gives the same sessions and digests as without, for any history and edits', () => {
    const step = fc.record({
      add: fc.integer({ min: 1, max: 3 }),
      edit: fc.integer({ min: -1, max: 8 }),
      text: fc.constantFrom('x', 'y "q"', 'z\\n[1]', '{a}'),
      marker: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const withRaw = new ProxySessions();
        const plain = new ProxySessions();
        let history: MessageParam[] = [];
        steps.forEach((st, k) => {
          history = grown(history, st, k);
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

describe('parsing only what is new', () => {
  it('the body without its known messages parses to the rest of the body and the new messages', () => {
    const a = [msg('user', 'hi "there" [x]'), msg('assistant', 'a \\ b {c}'), msg('user', 'next')];
    const p1 = nextPrefix(raw(a), 3, undefined, 0)!;
    const b = [...a, msg('assistant', 'ok'), msg('user', 'more')];
    const body = JSON.parse(elidedJson(p1, raw(b))!) as {
      messages: MessageParam[];
      system: unknown;
      max_tokens: number;
    };
    const full = JSON.parse(raw(b).toString()) as typeof body;
    expect(body.messages).toEqual(full.messages.slice(2));
    expect(body.system).toEqual(full.system);
    expect(body.max_tokens).toBe(100);
    // Bodies that do not start with the known bytes are not elided.
    expect(elidedJson(p1, raw([msg('user', 'other'), ...b.slice(1)]))).toBeUndefined();
  });

  it(
    'a proxy that parses only new messages keeps the same logs and sends the same bytes as one that parses ' +
      'everything',
    () => {
      const step = fc.record({
        add: fc.integer({ min: 1, max: 3 }),
        edit: fc.integer({ min: -1, max: 8 }),
        text: fc.constantFrom('x', 'y "q"', 'z\\n[1]', '{a}', 'é ☃'),
        marker: fc.boolean(),
        pin: fc.boolean(),
        key: fc.constantFrom('s1', 's2'),
      });
      fc.assert(
        fc.property(
          fc.array(step, { minLength: 1, maxLength: 10 }),
          fc.constantFrom('none', 'default'),
          (steps, strategy) => {
            const partial = new ProxyEngine({ strategy });
            const full = new ProxyEngine({ strategy });
            const histories: Record<string, MessageParam[]> = { s1: [], s2: [] };
            steps.forEach((st, k) => {
              const history = (histories[st.key] = grown(histories[st.key], st, k));
              const body = raw(history, st.marker);
              const headers = { 'x-claude-code-session-id': st.key };
              const a = partial.onRequest(body, headers, k);
              // The reference parses everything: it never keeps a raw prefix to elide with.
              for (const e of full.sessions.all()) e.rawPrefix = undefined;
              const b = full.onRequest(body, headers, k);
              expect(a.sessionId).toBe(b.sessionId);
              expect(a.body.equals(b.body)).toBe(true);
              const la = partial
                .state(a.sessionId!)!
                .entry.session.messages.map((m) => [m.role, m.blocks.map((x) => x.param)]);
              const lb = full
                .state(b.sessionId!)!
                .entry.session.messages.map((m) => [m.role, m.blocks.map((x) => x.param)]);
              expect(la).toEqual(lb);
              if (st.pin) {
                // A user's pin under observe-only: requests go through the engine from then on, in both.
                for (const eng of [partial, full]) {
                  const st = eng.state(a.sessionId!)!;
                  const target = st.entry.session.messages[0].blocks[0];
                  if (!st.entry.session.isPinned(target.id)) st.inspector.handle({ op: 'pin', blockId: target.id });
                }
              }
            });
          },
        ),
        { numRuns: 200 },
      );
    },
    60_000,
  );
});
