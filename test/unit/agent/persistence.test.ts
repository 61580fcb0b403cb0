/** Durable agent sessions: everything the loop does is journaled; resume rebuilds it exactly and continues. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AgentLoop,
  NodeWorkspace,
  openAgentSession,
  reconcileCalls,
  resolveAgentConfig,
  SessionNotFoundError,
} from '../../../src/core/agent';
import { loadJournal, scanJournal } from '../../../src/core/store';
import { startTestServer, type TestServer } from '../../../src/dev/server';
import { expectAllValid, expectPaired, FAST_RETRY, tempWorkspace, textOf } from './helpers';

let server: TestServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-sessions-'));
  dirs.push(d);
  return d;
}

/** Four read rounds over files long enough for summarize-tool-results to trim the oldest. */
function scriptRounds(s: TestServer, n: number): void {
  for (let i = 0; i < n; i++)
    s.script({
      content: [
        { type: 'text', text: `Reading f${i}.` },
        { type: 'tool_use', name: 'read_file', input: { path: `f${i}.txt` } },
      ],
    });
  s.script({ content: [{ type: 'text', text: 'All read.' }] });
}

describe('durable sessions', () => {
  it('journals messages, calls, usage, decisions and calibration; resume continues exactly', async () => {
    server = await startTestServer({ fallback: 'fail' });
    const files = Object.fromEntries(
      Array.from({ length: 4 }, (_, i) => [`f${i}.txt`, `content of file ${i}\n`.repeat(40)]),
    );
    const ws = tempWorkspace(files);
    dirs.push(ws);
    const sessions = tmp();
    // Cache-aware deferral off: the summaries apply at once, so there are overlays to journal and restore.
    const config = resolveAgentConfig(
      { apiKey: 'k', baseURL: server.url, retry: FAST_RETRY, pipeline: { cacheAware: { enabled: false } } },
      {},
    );
    const first = openAgentSession({ dir: sessions, sessionId: 'durable-1', model: config.model });
    expect(first.resumed).toBe(false);
    const loop1 = new AgentLoop({
      session: first.session,
      workspace: new NodeWorkspace(ws),
      config,
      journal: first.journal,
    });
    scriptRounds(server, 4);
    expect((await loop1.run('Read the four files.')).reason).toBe('end_turn');
    const costBefore = loop1.ledger.session.cost;
    const snapshot = JSON.stringify(
      first.session.messages.map((m) => [m.id, m.role, m.blocks.map((b) => b.param), m.meta]),
    );
    const overlays = JSON.stringify(first.session.allOverlays());
    expect(first.session.allOverlays().length).toBeGreaterThan(0);
    loop1.close();

    const loaded = loadJournal(first.file);
    expect(loaded.issues).toEqual([]);
    expect(loaded.session.calls).toHaveLength(5);
    expect(loaded.calibrations).toHaveLength(5);
    expect(loaded.decisions.length).toBeGreaterThan(0);
    expect(loaded.session.system).toBe(first.session.system);
    expect(loaded.session.tools).toHaveLength(7);

    const resumed = openAgentSession({ dir: sessions, sessionId: 'durable-1', mustExist: true, model: config.model });
    expect(resumed.resumed).toBe(true);
    expect(
      JSON.stringify(resumed.session.messages.map((m) => [m.id, m.role, m.blocks.map((b) => b.param), m.meta])),
    ).toBe(snapshot);
    expect(JSON.stringify(resumed.session.allOverlays())).toBe(overlays);
    expect(resumed.calibration).toBeDefined();
    expect(resumed.decisions.length).toBe(loaded.decisions.length);
    const loop2 = new AgentLoop({
      session: resumed.session,
      workspace: new NodeWorkspace(ws),
      config,
      journal: resumed.journal,
      calibration: resumed.calibration,
      decisions: resumed.decisions,
    });
    expect(loop2.ledger.session.cost).toBeCloseTo(costBefore, 12);
    expect(loop2.ledger.run.calls).toBe(0);
    expect(loop2.engine.decisions.all().length).toBe(resumed.decisions.length);
    server.script({ content: [{ type: 'text', text: 'Second turn.' }] });
    expect((await loop2.run('One more thing.')).reason).toBe('end_turn');
    loop2.close();

    const text = fs.readFileSync(first.file, 'utf8');
    const scan = scanJournal(text);
    expect(scan.duplicates).toBe(0);
    const ids = scan.records
      .filter((r) => r.record.type === 'message')
      .map((r) => (r.record as { message: { id: string } }).message.id);
    expect(new Set(ids).size).toBe(ids.length);
    const final = loadJournal(first.file).session;
    expect(final.messages).toHaveLength(12);
    expect(final.calls).toHaveLength(6);
    expectPaired(final);
    expectAllValid(server);
    // The request after the resume carried the prior conversation (its intermediate tool steps may be trimmed by then).
    const last = server.requests.at(-1)!.body as { messages: { content: unknown }[] };
    const sent = last.messages.map((m) => textOf(m.content)).join('\n');
    for (const t of ['Read the four files.', 'All read.', 'One more thing.']) expect(sent).toContain(t);
  });

  it('restores a call record lost to a crash right after its message was written', () => {
    const sessions = tmp();
    const h = openAgentSession({ dir: sessions, sessionId: 'lost-call' });
    h.session.append('user', 'Hi');
    h.session.append('assistant', 'Hello.', {
      apiMessageId: 'msg_lost',
      usage: { input_tokens: 10, output_tokens: 3 },
      model: 'claude-sonnet-4-6',
    });
    h.journal.close();
    const r = openAgentSession({ dir: sessions, sessionId: 'lost-call', mustExist: true });
    expect(r.session.calls).toHaveLength(1);
    expect(r.session.calls[0]).toMatchObject({
      at: 1,
      apiMessageId: 'msg_lost',
      usage: { input_tokens: 10, output_tokens: 3 },
    });
    expect(reconcileCalls(r.session, r.journal)).toBe(0);
    r.journal.close();
    expect(loadJournal(r.file).session.calls).toHaveLength(1);
  });

  it('refuses to resume a session that does not exist', () => {
    expect(() => openAgentSession({ dir: tmp(), sessionId: 'nope', mustExist: true })).toThrow(SessionNotFoundError);
  });
});
