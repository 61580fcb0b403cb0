/** Proxied calls' verdicts follow the client's conversation across epochs, not its side calls. */
import { describe, expect, it } from 'vitest';
import { messageDigest } from '../../../src/core/proxy/digest';
import { fingerprintRequest } from '../../../src/core/cache/fingerprint';
import { ProxyVerdicts } from '../../../src/core/proxy/verdicts';
import type { MessageParam } from '../../../src/core/session/types';

const user = (t: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text: t }] });
const asst = (t: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text: t }] });
const SYSTEM = [{ type: 'text', text: 'Main system prompt', cache_control: { type: 'ephemeral' } }];
const TOOLS = [{ name: 'Read', input_schema: { type: 'object' } }];
const usage = (read: number, written: number) => ({
  input_tokens: 3,
  output_tokens: 3,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: written,
});

function call(
  v: ProxyVerdicts,
  sessionId: string,
  sessionCall: number,
  messages: MessageParam[],
  over: { system?: unknown[]; key?: string } = {},
  now = 1000,
) {
  const body = { model: 'claude-sonnet-4-6', system: over.system ?? SYSTEM, tools: TOOLS, messages };
  return v.onRequest({
    sessionId,
    key: 'key' in over ? over.key : 'K',
    sessionCall,
    body,
    digests: messages.map(messageDigest),
    now,
  });
}

describe('ProxyVerdicts lineages', () => {
  it(
    'says when the client changed its system prompt or tools since its previous call (a free moment for the ' +
      'engine)',
    () => {
      const v = new ProxyVerdicts();
      expect(call(v, 'K', 0, [user('a')]).headChanged).toBe(false);
      v.onResponse('K', 0, { id: 'msg_0', usage: usage(0, 2000) });
      expect(call(v, 'K', 1, [user('a'), asst('b'), user('c')]).headChanged).toBe(false);
      v.onResponse('K', 1, { id: 'msg_1', usage: usage(2000, 100) });
      const changed = call(v, 'K', 2, [user('a'), asst('b'), user('c'), asst('d'), user('e')], {
        system: [{ type: 'text', text: 'Main system prompt, v2', cache_control: { type: 'ephemeral' } }],
      });
      expect(changed).toMatchObject({ lineage: 'key:K', call: 2, headChanged: true });
    },
  );

  it(
    'a side call under the same key has its own lineage; the main conversation is compared with itself, ' +
      'across an edit',
    () => {
      const v = new ProxyVerdicts();
      expect(call(v, 'K', 0, [user('a')])).toMatchObject({ lineage: 'key:K', call: 0, previousMessageId: null });
      v.onResponse('K', 0, { id: 'msg_0', usage: usage(0, 2000) });
      // A title-generation side call: same key, another system prompt.
      const side = call(v, 'K.e2', 0, [user('title please')], { system: [{ type: 'text', text: 'Write a title' }] });
      expect(side).toMatchObject({ lineage: 'key:K#K.e2', call: 0, previousMessageId: null });
      expect(v.onResponse('K.e2', 0, { id: 'msg_s', usage: usage(0, 10) })!.verdict.miss?.reason).toBe('first_call');
      // The main conversation goes on: compared with its own last request.
      expect(call(v, 'K', 1, [user('a'), asst('b'), user('c')])).toMatchObject({
        lineage: 'key:K',
        call: 1,
        previousMessageId: 'msg_0',
      });
      expect(v.onResponse('K', 1, { id: 'msg_1', usage: usage(2000, 100) })!.verdict.miss).toBeNull();
      // It edits its history (a new epoch, same system and tools): still its lineage, and a messages_changed miss.
      expect(call(v, 'K.e3', 0, [user('A!'), asst('b'), user('c'), asst('d'), user('e')])).toMatchObject({
        lineage: 'key:K',
        call: 2,
        previousMessageId: 'msg_1',
      });
      const edited = v.onResponse('K.e3', 0, { id: 'msg_2', usage: usage(0, 2200) })!.verdict;
      expect(edited.miss).toMatchObject({ reason: 'messages_changed', changeSource: 'client', missedTokens: 2100 });
    },
  );

  it(
    'numbering goes on from a journal of an earlier run; keyless clients that rewrite history keep their ' + 'lineage',
    () => {
      const v = new ProxyVerdicts();
      v.seed('key:K', 7);
      expect(call(v, 'K', 3, [user('a')])).toMatchObject({ lineage: 'key:K', call: 7 });
      const a = call(v, 'anon-1', 0, [user('hello'), asst('x'), user('y')], { key: undefined });
      v.onResponse('anon-1', 0, { id: 'msg_a', usage: usage(0, 1500) });
      const b = call(v, 'anon-2', 0, [user('hello'), asst('X!'), user('y'), asst('z'), user('w')], { key: undefined });
      expect(b).toMatchObject({ lineage: a.lineage, call: 1, previousMessageId: 'msg_a' });
      const other = call(v, 'anon-3', 0, [user('something else')], { key: undefined });
      expect(other.lineage).not.toBe(a.lineage);
    },
  );

  it(
    'a failed call leaves nothing to compare with: the retry takes its number and is compared with the call ' +
      'before',
    () => {
      const v = new ProxyVerdicts();
      call(v, 'K', 0, [user('a')]);
      v.onResponse('K', 0, { id: 'msg_0', usage: usage(0, 2000) });
      expect(call(v, 'K', 1, [user('a'), asst('b'), user('c')])).toMatchObject({ call: 1, previousMessageId: 'msg_0' });
      v.onFailed('K', 1);
      expect(call(v, 'K', 2, [user('a'), asst('b'), user('c')])).toMatchObject({ call: 1, previousMessageId: 'msg_0' });
      expect(v.onResponse('K', 2, { id: 'msg_1', usage: usage(2000, 50) })!.verdict).toMatchObject({
        call: 1,
        miss: null,
      });
    },
  );

  it(
    'a restored last request (an earlier run\u2019s journal) is what the next call is compared with, unless ' +
      'this run sent a later one',
    () => {
      const history = [user('a'), asst('b'), user('c')];
      const print = fingerprintRequest(
        { model: 'claude-sonnet-4-6', system: SYSTEM, tools: TOOLS, messages: history },
        1000,
        { clientDigests: history.map(messageDigest) },
      );
      const v = new ProxyVerdicts();
      v.restore('K', {
        lineage: 'key:K',
        call: 4,
        print,
        responseId: 'msg_4',
        usage: { read: 1800, written: 200, uncached: 3 },
      });
      // The restored session keeps its lineage even when its head changes: a tools_changed miss, not a new lineage.
      const next = v.onRequest({
        sessionId: 'K',
        key: 'K',
        sessionCall: 5,
        body: {
          model: 'claude-sonnet-4-6',
          system: SYSTEM,
          tools: [...TOOLS, { name: 'Grep', input_schema: { type: 'object' } }],
          messages: [...history, asst('d'), user('e')],
        },
        digests: [...history, asst('d'), user('e')].map(messageDigest),
        now: 2000,
      });
      expect(next).toMatchObject({ lineage: 'key:K', call: 5, previousMessageId: 'msg_4', headChanged: true });
      expect(v.onResponse('K', 5, { id: 'msg_5', usage: usage(0, 2300) })!.verdict.miss).toMatchObject({
        reason: 'tools_changed',
        missedTokens: 2000,
      });
      // The same journal read again (the session came back after an eviction): this run's call 5 stays the one to
      // compare with.
      v.restore('K', { lineage: 'key:K', call: 4, print, responseId: 'msg_4' });
      expect(call(v, 'K', 6, [...history, asst('d'), user('e'), asst('f'), user('g')])).toMatchObject({
        call: 6,
        previousMessageId: 'msg_5',
      });
    },
  );
});
