/**
 * The standalone server's event streams: whole snapshot first and after `ready`, then deltas that rebuild the current
 * snapshot.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDelta } from '../../../src/protocol/delta';
import { importTranscript } from '../../../src/core/import';
import { ReplayInspector, startInspectorServer, type InspectorServer } from '../../../src/host/standalone';
import type { HostMessage, InspectorSnapshot } from '../../../src/protocol';
import { listenEvents, SAMPLES, TRANSCRIPTS } from './helpers';

/** The messages of a stream, as the page gets them. */
async function listen(server: InspectorServer, client?: string): Promise<{ messages: HostMessage[]; close(): void }> {
  const s = await listenEvents(server, client);
  return {
    get messages() {
      return s.messages.map((m) => m.msg);
    },
    close: () => s.close(),
  };
}

function post(server: InspectorServer, msg: unknown, client?: string): Promise<string> {
  const { port, token } = server;
  return new Promise((ok, fail) => {
    const body = JSON.stringify(msg);
    const path = client ? `/api/request?client=${client}` : '/api/request';
    const headers = { Host: `127.0.0.1:${port}`, 'Content-Type': 'application/json', 'X-Trimline-Token': token };
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path, headers }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (data += c));
      res.on('end', () => ok(data));
    });
    req.on('error', fail);
    req.end(body);
  });
}

/** What a page holds after applying `messages` in order (undefined if a delta did not fit). */
function replayStream(messages: HostMessage[]): { snapshot?: InspectorSnapshot; revision?: number } {
  let snapshot: InspectorSnapshot | undefined;
  let revision: number | undefined;
  for (const m of messages) {
    if (m.type === 'snapshot') [snapshot, revision] = [m.snapshot, m.revision];
    else if (m.type === 'snapshotDelta') {
      if (!snapshot || m.delta.base !== revision) return {};
      snapshot = applyDelta(snapshot, m.delta);
      revision = m.delta.revision;
    }
  }
  return { snapshot, revision };
}

const plain = (s: unknown): unknown => JSON.parse(JSON.stringify(s));

describe('standalone server: snapshot deltas per event stream', () => {
  let server: InspectorServer;
  let inspector: ReplayInspector;
  beforeAll(async () => {
    inspector = new ReplayInspector(importTranscript(`${TRANSCRIPTS}/${SAMPLES[2]}`), { strategy: 'default' });
    server = await startInspectorServer(inspector, { root: process.cwd(), mutates: (r) => ReplayInspector.mutates(r) });
  });
  afterAll(() => server?.close());

  it('answers a page’s ready on its own stream, then sends deltas that rebuild each new snapshot', async () => {
    const page = await listen(server, 'page1');
    expect(await post(server, { type: 'ready' }, 'page1')).toBe('[]');
    await expect.poll(() => page.messages.length).toBe(1);
    expect(page.messages[0].type).toBe('snapshot');

    const tool = inspector.snapshot().rows.find((r) => r.kind === 'tool_result' && r.state === 'verbatim')!;
    const reply = JSON.parse(
      await post(server, { type: 'request', id: 1, request: { op: 'pin', blockId: tool.blockId } }, 'page1'),
    ) as HostMessage[];
    expect(reply.map((m) => m.type)).toEqual(['response']);
    await expect.poll(() => page.messages.length).toBe(2);
    expect(page.messages[1].type).toBe('snapshotDelta');
    expect(plain(replayStream(page.messages).snapshot)).toEqual(plain(inspector.snapshot()));

    // A read-only request changes nothing: nothing is pushed.
    await post(server, { type: 'request', id: 2, request: { op: 'diff' } }, 'page1');
    server.broadcast();
    await post(server, { type: 'request', id: 3, request: { op: 'unpin', blockId: tool.blockId } }, 'page1');
    await expect.poll(() => page.messages.length).toBe(3);
    expect(page.messages[2].type).toBe('snapshotDelta');
    expect(plain(replayStream(page.messages).snapshot)).toEqual(plain(inspector.snapshot()));

    // `ready` again (a resync): a whole snapshot on the same stream, and deltas continue from it.
    await post(server, { type: 'ready' }, 'page1');
    await expect.poll(() => page.messages.length).toBe(4);
    expect(page.messages[3].type).toBe('snapshot');
    const { revision } = replayStream(page.messages);
    await post(server, { type: 'request', id: 4, request: { op: 'pin', blockId: tool.blockId } }, 'page1');
    await expect.poll(() => page.messages.length).toBe(5);
    const d = page.messages[4];
    expect(d.type === 'snapshotDelta' && d.delta.base).toBe(revision);
    expect(plain(replayStream(page.messages).snapshot)).toEqual(plain(inspector.snapshot()));
    page.close();
  });

  it('keeps each stream on its own base; a stream without an id starts whole; ready without a stream is answered inline', async () => {
    const a = await listen(server, 'pageA');
    const anon = await listen(server);
    await post(server, { type: 'ready' }, 'pageA');
    await expect.poll(() => a.messages.length).toBe(1);
    const tool = inspector
      .snapshot()
      .rows.filter((r) => r.kind === 'tool_result' && r.state === 'verbatim')
      .at(-1)!;
    await post(server, { type: 'request', id: 1, request: { op: 'pin', blockId: tool.blockId } }, 'pageA');
    await expect.poll(() => anon.messages.length).toBe(1);
    await expect.poll(() => a.messages.length).toBe(2);
    expect(anon.messages[0].type).toBe('snapshot');
    expect(a.messages[1].type).toBe('snapshotDelta');
    const inline = JSON.parse(await post(server, { type: 'ready' }, 'no-such-page')) as HostMessage[];
    expect(inline.map((m) => m.type)).toEqual(['snapshot']);
    a.close();
    anon.close();
  });
});
