/** The cache verdict of a call from two consecutive requests, their usage and the API's answer. */
import { describe, expect, it } from 'vitest';
import { costOf } from '../../../src/core/cache/cost';
import { fingerprintRequest, type FingerprintBody } from '../../../src/core/cache/fingerprint';
import { cacheVerdict, disagreement, divergence, missCost } from '../../../src/core/cache/verdict';
import type { MessageParam } from '../../../src/core/session/types';

const MODEL = 'claude-sonnet-4-6';
const tool = (
  name: string,
  description = `${name} tool`,
): { name: string; description: string; input_schema: { type: 'object' } } => ({
  name,
  description,
  input_schema: { type: 'object' },
});
const user = (text: string, cc = false): MessageParam => ({
  role: 'user',
  content: [{ type: 'text', text, ...(cc ? { cache_control: { type: 'ephemeral' as const } } : {}) }],
});
const assistant = (text: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text }] });

function body(over: Partial<FingerprintBody> = {}): FingerprintBody {
  return {
    model: MODEL,
    tools: [tool('Read'), tool('Bash')],
    system: [
      { type: 'text', text: 'You are helpful.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Today is Monday.' },
    ],
    messages: [user('one'), assistant('ok'), user('two', true)],
    ...over,
  };
}
const usage = (read: number, written: number, uncached = 10) => ({
  input_tokens: uncached,
  output_tokens: 5,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: written,
});
const at = (min: number): number => Date.UTC(2026, 10, 26, 9) + min * 60_000;

describe('divergence: the first place two requests differ, in prefix order', () => {
  const prev = fingerprintRequest(body(), at(0));
  it('only appended messages (markers moved) is no divergence', () => {
    const next = body({
      messages: [user('one'), assistant('ok'), user('two'), assistant('fine'), user('three', true)],
    });
    expect(divergence(prev, fingerprintRequest(next, at(1)))).toBeUndefined();
  });
  it('names the model, the tools (reordered, added, edited), the system block, the message', () => {
    expect(divergence(prev, fingerprintRequest(body({ model: 'claude-opus-4-6' }), at(1)))?.reason).toBe(
      'model_changed',
    );
    const reordered = divergence(prev, fingerprintRequest(body({ tools: [tool('Bash'), tool('Read')] }), at(1)));
    expect(reordered).toMatchObject({ reason: 'tools_changed' });
    expect(reordered?.where).toContain('reordered');
    expect(
      divergence(prev, fingerprintRequest(body({ tools: [tool('Read'), tool('Bash'), tool('Grep')] }), at(1)))?.where,
    ).toContain('added Grep');
    expect(
      divergence(prev, fingerprintRequest(body({ tools: [tool('Read'), tool('Bash', 'runs things')] }), at(1)))?.where,
    ).toContain('definition changed: Bash');
    const sys = divergence(
      prev,
      fingerprintRequest(
        body({
          system: [
            { type: 'text', text: 'You are helpful.' },
            { type: 'text', text: 'Today is Tuesday.' },
          ],
        }),
        at(1),
      ),
    );
    expect(sys).toEqual({ reason: 'system_changed', where: 'system block 1' });
    const msg = divergence(
      prev,
      fingerprintRequest(
        body({ messages: [user('ONE'), assistant('ok'), user('two'), assistant('x'), user('y')] }),
        at(1),
      ),
    );
    expect(msg).toEqual({ reason: 'messages_changed', where: 'message 0 (user)', changeSource: 'client' });
  });
  it('a change Trimline made to the client\u2019s unchanged messages is a trimline_edit', () => {
    const client = [user('one'), assistant('ok'), user('two'), assistant('fine'), user('three', true)];
    const sent = [user('one'), assistant('[trimmed]'), user('two'), assistant('fine'), user('three', true)];
    const next = fingerprintRequest(body({ messages: sent }), at(1), { clientMessages: client });
    expect(divergence(prev, next)).toEqual({
      reason: 'messages_changed',
      where: 'message 1 (assistant)',
      changeSource: 'trimline_edit',
    });
  });
});

describe('cacheVerdict', () => {
  const first = fingerprintRequest(body(), at(0));
  const appended = body({
    messages: [user('one'), assistant('ok'), user('two'), assistant('fine'), user('three', true)],
  });

  it('the first call is first_call; a call that read all the previous call cached has no miss', () => {
    expect(cacheVerdict({ call: 0, sessionCall: 0, current: first, usage: usage(0, 2000) }).miss).toEqual({
      reason: 'first_call',
      source: 'local',
      missedTokens: 0,
    });
    const v = cacheVerdict({
      call: 1,
      sessionCall: 1,
      current: fingerprintRequest(appended, at(2)),
      previous: { print: first, usage: usage(0, 2000) },
      usage: usage(2000, 300),
    });
    expect(v.miss).toBeNull();
    expect(v.missCost).toBe(0);
    expect(v.usage).toEqual({ read: 2000, written: 300, uncached: 10 });
  });

  it('idle past the TTL of the last breakpoint: ttl_expired with the idle minutes', () => {
    const v = cacheVerdict({
      call: 1,
      sessionCall: 1,
      current: fingerprintRequest(appended, at(7.5)),
      previous: { print: first, usage: usage(0, 2000) },
      usage: usage(0, 2300),
    });
    expect(v.miss).toMatchObject({ reason: 'ttl_expired', idleMinutes: 7.5, missedTokens: 2000 });
    expect(v.beyondRules).toBe(false);
    // A 1h breakpoint keeps it warm for the same gap: nothing explains the loss.
    const hour = fingerprintRequest(
      body({
        system: [
          { type: 'text', text: 'You are helpful.', cache_control: { type: 'ephemeral', ttl: '1h' } },
          { type: 'text', text: 'Today is Monday.' },
        ],
        messages: [user('one'), assistant('ok'), user('two')],
      }),
      at(0),
    );
    const next = fingerprintRequest(
      body({
        system: [
          { type: 'text', text: 'You are helpful.', cache_control: { type: 'ephemeral', ttl: '1h' } },
          { type: 'text', text: 'Today is Monday.' },
        ],
        messages: [user('one'), assistant('ok'), user('two'), assistant('a'), user('b')],
      }),
      at(7.5),
    );
    const w = cacheVerdict({
      call: 1,
      sessionCall: 1,
      current: next,
      previous: { print: hour, usage: usage(0, 2000) },
      usage: usage(0, 2300),
    });
    expect(w.miss).toMatchObject({ reason: 'unexplained', missedTokens: 2000 });
    expect(w.beyondRules).toBe(true);
  });

  it('a change after the cached prefix costs nothing: no miss', () => {
    const edited = fingerprintRequest(
      body({
        system: [
          { type: 'text', text: 'You are helpful.' },
          { type: 'text', text: 'Today is Tuesday.' },
        ],
      }),
      at(1),
    );
    expect(
      cacheVerdict({
        call: 1,
        sessionCall: 1,
        current: edited,
        previous: { print: first, usage: usage(1500, 0) },
        usage: usage(1500, 0),
      }).miss,
    ).toBeNull();
  });

  it('prices the miss with costOf: the call as billed minus the same call reading what it missed', () => {
    const cur = fingerprintRequest(body({ model: 'claude-opus-4-6' }), at(1));
    const u = usage(0, 2300, 40);
    const v = cacheVerdict({
      call: 1,
      sessionCall: 1,
      current: cur,
      previous: { print: first, usage: usage(0, 2000) },
      usage: u,
    });
    expect(v.miss).toMatchObject({ reason: 'model_changed', missedTokens: 2000 });
    const warm = {
      input_tokens: 40,
      output_tokens: 0,
      cache_creation_input_tokens: 300,
      cache_read_input_tokens: 2000,
    };
    const expected =
      costOf({ ...u, output_tokens: 0 }, 'claude-opus-4-6').total - costOf(warm, 'claude-opus-4-6').total;
    expect(v.missCost).toBeCloseTo(expected, 12);
    expect(v.missCost).toBeGreaterThan(0);
    expect(missCost(u, 0, 'claude-opus-4-6', '5m')).toBe(0);
  });

  it('the API\u2019s reason is shown with source api; the local where/who are kept; disagreements are named', () => {
    const cur = fingerprintRequest(body({ tools: [tool('Bash'), tool('Read')] }), at(1));
    const agree = cacheVerdict({
      call: 1,
      sessionCall: 1,
      current: cur,
      previous: { print: first, usage: usage(0, 2000) },
      usage: usage(0, 2000),
      api: { type: 'tools_changed', cache_missed_input_tokens: 1990 },
    });
    expect(agree.miss).toMatchObject({ reason: 'tools_changed', source: 'api', missedTokens: 1990 });
    expect(agree.miss?.where).toContain('reordered');
    expect(agree.disagreement).toBeUndefined();
    const differ = cacheVerdict({
      call: 1,
      sessionCall: 1,
      current: cur,
      previous: { print: first, usage: usage(0, 2000) },
      usage: usage(0, 2000),
      api: { type: 'system_changed', cache_missed_input_tokens: 1000 },
    });
    expect(differ.miss?.reason).toBe('system_changed');
    expect(differ.disagreement).toContain('the API reports system_changed; the local diff found tools_changed');
    // The API lost the previous response: the local reason is shown.
    const lost = cacheVerdict({
      call: 1,
      sessionCall: 1,
      current: cur,
      previous: { print: first, usage: usage(0, 2000) },
      usage: usage(0, 2000),
      api: { type: 'previous_message_not_found' },
    });
    expect(lost.miss).toMatchObject({ reason: 'tools_changed', source: 'local' });
    expect(disagreement({ reason: 'ttl_expired', source: 'local', missedTokens: 5 }, null)).toBeUndefined();
    // The API says the divergence could lose 300 tokens; the bill says 2,000 were lost: beyond the rules.
    const sys = fingerprintRequest(
      body({
        system: [
          { type: 'text', text: 'You are helpful.', cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'Today is Tuesday.' },
        ],
      }),
      at(1),
    );
    const beyond = cacheVerdict({
      call: 1,
      sessionCall: 1,
      current: sys,
      previous: { print: first, usage: usage(0, 2000) },
      usage: usage(0, 2000),
      api: { type: 'system_changed', cache_missed_input_tokens: 300 },
    });
    expect(beyond).toMatchObject({ miss: { reason: 'system_changed', source: 'api' }, beyondRules: true });
    const within = cacheVerdict({
      call: 1,
      sessionCall: 1,
      current: sys,
      previous: { print: first, usage: usage(0, 2000) },
      usage: usage(1700, 300),
      api: { type: 'system_changed', cache_missed_input_tokens: 290 },
    });
    expect(within.beyondRules).toBe(false);
    expect(disagreement({ reason: 'messages_changed', source: 'local', missedTokens: 5 }, null)).toContain(
      'the API reports no divergence',
    );
  });
});
