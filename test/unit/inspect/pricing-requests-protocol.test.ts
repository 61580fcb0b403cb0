/** Price, sessions and head requests, and the verdicts, prices and heads answering them, are checked on both sides. */
import { describe, expect, it } from 'vitest';
import { parseWebviewMessage } from '../../../src/protocol';
import { isSnapshotDelta } from '../../../src/protocol/delta-guards';
import { isCallVerdict } from '../../../src/protocol/verdicts';
import { isActionPrice } from '../../../src/protocol/prices';
import { isSessionsResult } from '../../../src/protocol/sessions';
import { isHeadResult } from '../../../src/protocol/head';

const req = (request: unknown): unknown => parseWebviewMessage({ type: 'request', id: 1, request });
/** A call point as a delta carries it (the webview checks deltas whole). */
const isCallPointForTest = (point: unknown): boolean =>
  isSnapshotDelta({
    base: 1,
    revision: 2,
    removed: [],
    changed: [],
    shifts: [],
    counts: [],
    added: [],
    head: {},
    callsFrom: 0,
    calls: [point],
  });

describe('pricing, sessions and head protocol', () => {
  it('accepts the new requests and only well-formed ones', () => {
    expect(req({ op: 'price', action: { op: 'trim', blockId: 'b1', text: 'x' } })).toEqual({
      type: 'request',
      id: 1,
      request: { op: 'price', action: { op: 'trim', blockId: 'b1', text: 'x' } },
    });
    expect(req({ op: 'defer', action: { op: 'compact' } })).toMatchObject({
      request: { op: 'defer', action: { op: 'compact' } },
    });
    expect(req({ op: 'price', action: { op: 'send', text: 'hi' } })).toBeUndefined();
    expect(req({ op: 'price', action: { op: 'pin' } })).toBeUndefined();
    expect(req({ op: 'price' })).toBeUndefined();
    expect(req({ op: 'follow', id: 'sess-1' })).toMatchObject({ request: { op: 'follow', id: 'sess-1' } });
    expect(req({ op: 'follow' })).toMatchObject({ request: { op: 'follow' } });
    expect(req({ op: 'follow', id: 42 })).toBeUndefined();
    expect(req({ op: 'follow', id: 'x'.repeat(300) })).toBeUndefined();
    expect(req({ op: 'sessions', extra: '<script>' })).toEqual({ type: 'request', id: 1, request: { op: 'sessions' } });
    expect(req({ op: 'head' })).toMatchObject({ request: { op: 'head' } });
    expect(req({ op: 'canPrompt' })).toMatchObject({ request: { op: 'canPrompt' } });
    expect(req({ op: 'nope' })).toBeUndefined();
  });

  it('checks verdicts, prices, session lists and heads from the host', () => {
    const verdict = {
      call: 2,
      sessionCall: 2,
      miss: { reason: 'tools_changed', source: 'api', missedTokens: 10 },
      local: null,
      beyondRules: false,
      missCost: 0.01,
    };
    expect(isCallVerdict(verdict)).toBe(true);
    expect(isCallVerdict({ ...verdict, miss: { reason: 'because', source: 'api', missedTokens: 1 } })).toBe(false);
    expect(isCallVerdict({ ...verdict, missCost: Number.NaN })).toBe(false);
    expect(isCallPointForTest({ call: 0, sent: 1, cached: 0, untrimmed: 1, cost: 0, verdict })).toBe(true);
    expect(isCallPointForTest({ call: 0, sent: 1, cached: 0, untrimmed: 1, cost: 0, verdict: { call: 'x' } })).toBe(
      false,
    );
    expect(
      isActionPrice({
        rewriteCost: 0,
        rewriteTokens: 0,
        savingPerCall: 0,
        tokensPerCall: 0,
        breakEvenCalls: null,
        expectedCalls: 1,
        paysBack: true,
        cold: false,
        summary: 's',
      }),
    ).toBe(true);
    expect(isActionPrice({ rewriteCost: '0' })).toBe(false);
    expect(
      isSessionsResult({ sessions: [{ id: 'a', title: 't', calls: 1, lastSeen: 0, parent: 'b' }], followed: 'a' }),
    ).toBe(true);
    expect(isSessionsResult({ sessions: [{ id: '', title: 't', calls: 1, lastSeen: 0 }] })).toBe(false);
    expect(
      isHeadResult({
        rows: [
          {
            ref: 'tools.0',
            section: 'tools',
            text: '{}',
            truncated: false,
            tokens: 1,
            cached: true,
            breakpoint: false,
            uses: 0,
          },
        ],
        calls: 1,
      }),
    ).toBe(true);
    expect(isHeadResult({ rows: [{ ref: 'x', section: 'messages' }], calls: 1 })).toBe(false);
  });
});
