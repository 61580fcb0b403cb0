/**
 * The protocol of the inspector's empty state: `empty` (host → webview, with the actions
 * the host offers) and `runAction` (webview → host), checked by the validators of both
 * sides; and the standalone server, which answers `ready` with `empty` while it has no
 * session and takes only the actions it offered.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startInspectorServer, type InspectorServer } from '../../../src/host/standalone';
import {
  INSPECTOR_ACTIONS,
  parseHostMessage,
  parseWebviewMessage,
  type InspectorAction,
  type InspectorSnapshot,
} from '../../../src/protocol';
import { RecordingHost } from './helpers';

const request = (r: unknown, id: unknown = 1) => ({ type: 'request', id, request: r });

describe('runAction (webview → host)', () => {
  it('accepts each declared action, and nothing else from the request', () => {
    expect(INSPECTOR_ACTIONS).toEqual(['startChat', 'importTranscript']);
    for (const action of INSPECTOR_ACTIONS) {
      expect(parseWebviewMessage(request({ op: 'runAction', action }, 5))).toEqual({
        type: 'request',
        id: 5,
        request: { op: 'runAction', action },
      });
    }
    // Extra fields are dropped: the host sees only what the protocol declares.
    expect(
      parseWebviewMessage(request({ op: 'runAction', action: 'startChat', command: 'workbench.action.terminal.new' })),
    ).toEqual(request({ op: 'runAction', action: 'startChat' }));
  });

  it('rejects unknown, missing and malformed actions and envelopes', () => {
    for (const bad of [
      request({ op: 'runAction' }),
      request({ op: 'runAction', action: '' }),
      request({ op: 'runAction', action: 'StartChat' }),
      request({ op: 'runAction', action: 'trimline.newChat' }),
      request({ op: 'runAction', action: 'workbench.action.terminal.new' }),
      request({ op: 'runAction', action: ['startChat'] }),
      request({ op: 'runAction', action: { toString: 'startChat' } }),
      request({ op: 'runAction', action: 'constructor' }),
      request({ op: 'runAction', action: 'startChat' }, '1'),
      request({ op: 'runAction', action: 'startChat' }, 2 ** 60),
      { type: 'runAction', action: 'startChat' },
    ]) {
      expect(parseWebviewMessage(bad)).toBeUndefined();
    }
  });
});

describe('empty (host → webview)', () => {
  it('accepts the declared actions, each once, in the host order (none is valid too)', () => {
    expect(parseHostMessage({ type: 'empty', actions: [] })).toEqual({ type: 'empty', actions: [] });
    expect(parseHostMessage({ type: 'empty', actions: ['importTranscript', 'startChat'] })).toEqual({
      type: 'empty',
      actions: ['importTranscript', 'startChat'],
    });
    // A copy: what the webview keeps does not change with the object it was parsed from.
    const actions: InspectorAction[] = ['startChat'];
    const parsed = parseHostMessage({ type: 'empty', actions });
    actions.push('importTranscript');
    expect(parsed).toEqual({ type: 'empty', actions: ['startChat'] });
  });

  it('rejects unknown or repeated actions and anything but an array', () => {
    for (const bad of [
      { type: 'empty' },
      { type: 'empty', actions: 'startChat' },
      { type: 'empty', actions: { 0: 'startChat', length: 1 } },
      { type: 'empty', actions: ['startChat', 'runCommand'] },
      { type: 'empty', actions: ['startChat', 'startChat'] },
      { type: 'empty', actions: [null] },
      { type: 'Empty', actions: [] },
    ]) {
      expect(parseHostMessage(bad)).toBeUndefined();
    }
  });
});

describe('the standalone server without a session', () => {
  let server: InspectorServer | undefined;
  afterEach(() => server?.close());

  const post = async (msg: unknown): Promise<unknown> => {
    const headers = { 'Content-Type': 'application/json', 'X-Trimline-Token': server!.token };
    const res = await fetch(new URL('api/request', server!.url), {
      method: 'POST',
      headers,
      body: JSON.stringify(msg),
    });
    return res.ok ? res.json() : res.status;
  };

  it('answers ready with empty and no actions (the CLI has no chat), and refuses runAction', async () => {
    const host = new RecordingHost();
    server = await startInspectorServer(host, { root: process.cwd() });
    expect(await post({ type: 'ready' })).toEqual([{ type: 'empty', actions: [] }]);
    expect(await post(request({ op: 'runAction', action: 'importTranscript' }, 3))).toEqual([
      { type: 'response', id: 3, ok: false, error: '"importTranscript" is not offered by this inspector' },
    ]);
    expect(await post(request({ op: 'runAction', action: 'rm' }, 4))).toBe(400);
    expect(host.received).toEqual([]);
  });

  it('hands an offered action to its backend only while the empty state is shown', async () => {
    const host = new RecordingHost(['startChat']);
    server = await startInspectorServer(host, { root: process.cwd() });
    expect(await post({ type: 'ready' })).toEqual([{ type: 'empty', actions: ['startChat'] }]);
    expect(await post(request({ op: 'runAction', action: 'startChat' }, 1))).toEqual([
      { type: 'response', id: 1, ok: true },
    ]);
    expect(await post(request({ op: 'runAction', action: 'importTranscript' }, 2))).toMatchObject([
      { id: 2, ok: false },
    ]);
    expect(host.received).toEqual([{ op: 'runAction', action: 'startChat' }]);
    host.session = { rows: [] } as unknown as InspectorSnapshot;
    expect(await post(request({ op: 'runAction', action: 'startChat' }, 3))).toMatchObject([{ id: 3, ok: false }]);
    expect(host.received).toHaveLength(1);
  });
});
