/**
 * The proxy's pure logic: session keys, session matching (epochs, side calls, restarts), upstream bodies, SSE facts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProxyEngine } from '../../../src/core/proxy/proxy-engine';
import { ProxySessions } from '../../../src/core/proxy/registry';
import { metadataSessionId, sessionKeyOf } from '../../../src/core/proxy/session-key';
import { SseUsageReader } from '../../../src/core/proxy/sse-usage';
import { clientTtl, fitBreakpoints, headBreakpoints } from '../../../src/core/proxy/upstream';
import type { RequestBody } from '../../../src/core/api/wire';
import type { MessageParam } from '../../../src/core/session/types';

const user = (text: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text }] });
const asst = (text: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text }] });
const body = (messages: MessageParam[], extra: Partial<RequestBody> = {}): RequestBody => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 100,
  messages,
  ...extra,
});

describe('session keys', () => {
  it('reads Claude Code\u2019s header, its JSON metadata.user_id and the older user_…_session_… form', () => {
    expect(sessionKeyOf({ 'x-claude-code-session-id': 'abc-1' }, {})).toBe('abc-1');
    expect(
      metadataSessionId({ user_id: JSON.stringify({ device_id: 'd', account_uuid: 'a', session_id: 's-2' }) }),
    ).toBe('s-2');
    expect(metadataSessionId({ user_id: 'user_0f3a_account_9b1c_session_7e2d-44' })).toBe('7e2d-44');
    expect(sessionKeyOf({}, { metadata: { user_id: 'someone' } })).toBeUndefined();
    // Not a safe file name: not a key (matched by prefix instead).
    expect(sessionKeyOf({ 'x-claude-code-session-id': '../../etc' }, {})).toBeUndefined();
  });
});

describe('sessions from requests', () => {
  it('appends only what is new; cache_control moving between calls does not matter', () => {
    const reg = new ProxySessions();
    const first = reg.match({ key: 'k', messages: [user('hi')], model: 'm', now: 1 });
    expect(first).toMatchObject({ known: 0, created: true });
    const marked: MessageParam = {
      role: 'user',
      content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }],
    };
    const second = reg.match({ key: 'k', messages: [marked, asst('yo'), user('more')], model: 'm', now: 2 });
    expect(second).toMatchObject({ known: 1, created: false });
    expect(second.entry.session.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it(
    'a rewritten history (the client compacted) starts a new epoch; a side call is its own session and the ' +
      'main one continues',
    () => {
      const reg = new ProxySessions();
      const main = reg.match({ key: 'k', messages: [user('a'), asst('b'), user('c')], model: 'm', now: 1 }).entry;
      const side = reg.match({ key: 'k', messages: [user('title this conversation')], model: 'haiku', now: 2 }).entry;
      expect(side.id).toBe('k.e2');
      const cont = reg.match({
        key: 'k',
        messages: [user('a'), asst('b'), user('c'), asst('d'), user('e')],
        model: 'm',
        now: 3,
      });
      expect(cont.entry).toBe(main);
      expect(cont.known).toBe(3);
      const compacted = reg.match({
        key: 'k',
        messages: [user('summary of a…e'), asst('ok'), user('f')],
        model: 'm',
        now: 4,
      });
      expect(compacted.created).toBe(true);
      expect(compacted.entry.id).toBe('k.e3');
      expect(main.session.messages).toHaveLength(5);
    },
  );

  it('without a key, the longest matching prefix wins', () => {
    const reg = new ProxySessions();
    const a = reg.match({ key: undefined, messages: [user('one')], model: 'm', now: 1 }).entry;
    const b = reg.match({ key: undefined, messages: [user('two')], model: 'm', now: 2 }).entry;
    expect(reg.match({ key: undefined, messages: [user('one'), asst('x'), user('y')], model: 'm', now: 3 }).entry).toBe(
      a,
    );
    expect(reg.match({ key: undefined, messages: [user('two'), asst('x'), user('y')], model: 'm', now: 4 }).entry).toBe(
      b,
    );
  });
});

describe('upstream bodies', () => {
  it('the client\u2019s own breakpoints count toward the 4: the engine keeps its latest ones', () => {
    const cc = { type: 'ephemeral' as const };
    const client = body([user('x')], {
      system: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b', cache_control: cc },
        { type: 'text', text: 'c', cache_control: cc },
      ],
    });
    expect(headBreakpoints(client)).toBe(2);
    const msgs: MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: '1', cache_control: cc }] },
      asst('2'),
      { role: 'user', content: [{ type: 'text', text: '3', cache_control: cc }] },
      asst('4'),
      { role: 'user', content: [{ type: 'text', text: '5', cache_control: cc }] },
    ];
    const fitted = fitBreakpoints(msgs, 4 - headBreakpoints(client));
    const marked = fitted
      .flatMap((m, i) => (m.content as { cache_control?: unknown }[]).map((b) => (b.cache_control ? i : -1)))
      .filter((i) => i >= 0);
    expect(marked).toEqual([2, 4]);
    expect(msgs[0].content).toEqual([{ type: 'text', text: '1', cache_control: cc }]);
  });

  it('messages use the client\u2019s TTL, and never 1h after a 5m head marker', () => {
    const h1 = { type: 'ephemeral' as const, ttl: '1h' as const };
    expect(clientTtl(body([{ role: 'user', content: [{ type: 'text', text: 'x', cache_control: h1 }] }]))).toBe('1h');
    expect(clientTtl(body([user('x')], { system: [{ type: 'text', text: 's', cache_control: h1 }] }))).toBe('1h');
    expect(
      clientTtl(body([user('x')], { system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }] })),
    ).toBe('5m');
  });
});

describe('response facts from the relayed stream', () => {
  it(
    'usage from message_start and the cumulative message_delta, across chunk boundaries; unknown events ' + 'ignored',
    () => {
      const r = new SseUsageReader();
      const text =
        'event: message_start\ndata: ' +
        '{"type":"message_start","message":{"id":"msg_1","model":"claude-sonnet-4-5",' +
        '"usage":{"input_tokens":12,"cache_creation_input_tokens":100,' +
        '"cache_read_input_tokens":2000,"output_tokens":1}}}\n\n' +
        'event: ping\ndata: {"type":"ping"}\n\nevent: something_new\ndata: {"type":"something_new"}\n\n' +
        'event: message_delta\ndata: ' +
        '{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":57}}\n\n';
      for (let i = 0; i < text.length; i += 7) r.push(text.slice(i, i + 7));
      expect(r.facts).toEqual({
        id: 'msg_1',
        model: 'claude-sonnet-4-5',
        stopReason: 'tool_use',
        usage: { input_tokens: 12, cache_creation_input_tokens: 100, cache_read_input_tokens: 2000, output_tokens: 57 },
      });
    },
  );
});

describe('a proxy restarted mid-session', () => {
  it('continues the journaled session, with the user\u2019s trim, when the request extends it', () => {
    const journalDir = mkdtempSync(join(tmpdir(), 'trimline-proxy-unit-'));
    const big = 'line of a big file\n'.repeat(300);
    const history: MessageParam[] = [
      user('read it'),
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a.ts' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: big }] },
      asst('read.'),
      user('next'),
    ];
    const headers = { 'x-claude-code-session-id': 'restart-1' };
    const one = new ProxyEngine({ strategy: 'none', journalDir });
    const f1 = one.onRequest(Buffer.from(JSON.stringify(body(history))), headers, 1000);
    expect(f1.transformed).toBe(false);
    const st = one.state('restart-1')!;
    const result = st.entry.session.messages[2].blocks[0];
    st.inspector.handle({ op: 'trim', blockId: result.id, text: 'trimmed by the user' });
    one.close();

    const two = new ProxyEngine({ strategy: 'none', journalDir });
    const f2 = two.onRequest(Buffer.from(JSON.stringify(body([...history, asst('ok'), user('again')]))), headers, 2000);
    expect(f2.sessionId).toBe('restart-1');
    expect(f2.transformed).toBe(true);
    const sent = JSON.parse(f2.body.toString('utf8')) as RequestBody;
    const trimmed = String((sent.messages[2].content as { content: unknown }[])[0].content);
    expect(trimmed).toContain('trimmed by the user');
    expect(trimmed).not.toContain('line of a big file\nline of a big file');
    expect(two.state('restart-1')!.entry.session.messages).toHaveLength(7);
    two.close();
  });
});
