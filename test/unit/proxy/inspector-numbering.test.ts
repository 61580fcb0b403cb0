/**
 * One call numbering and a readable diff after the client edits its history (issue 29): a
 * proxied client session edits an earlier message, so the proxy starts a new epoch (a new log
 * and journal). The inspector, `inspect --json` and the journal give every call the same
 * number, and the edit's diff shows the one changed block, where it changed, and the rest as
 * unchanged (not everything as added). `inspect <journal>` shows what was sent, counting the
 * calls as the verdict list does.
 */
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { journalCallNumbers, runInspect } from '../../../src/cli/inspect';
import { ReplayInspector } from '../../../src/host/standalone/replay-inspector';
import { journalImporter } from '../../../src/core/import/journal';
import { ProxyEngine } from '../../../src/core/proxy/proxy-engine';
import type { MessageParam } from '../../../src/core/session/types';
import { journalPath, loadJournal } from '../../../src/core/store';
import type { RequestDiff } from '../../../src/protocol';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const SYSTEM = [{ type: 'text', text: 'You are a careful coding assistant.', cache_control: { type: 'ephemeral' } }];
const READ_SCHEMA = { type: 'object', properties: { path: { type: 'string' } } };
const TOOLS = [{ name: 'Read', description: 'Read a file', input_schema: READ_SCHEMA }];
const key = { 'x-claude-code-session-id': 'K' };
const usage = (read: number, written: number) => ({
  input_tokens: 3,
  output_tokens: 5,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: written,
});
const user = (t: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text: t }] });
const asst = (t: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text: t }] });

function loadJournalSession(file: string) {
  return journalImporter.parse({ file, text: fs.readFileSync(file, 'utf8'), json: { ok: false, error: 'not parsed' } });
}

function send(engine: ProxyEngine, messages: MessageParam[], now: number, id: string, u = usage(0, 0)) {
  const body = { model: 'claude-sonnet-4-5', max_tokens: 100, system: SYSTEM, tools: TOOLS, messages };
  const f = engine.onRequest(Buffer.from(JSON.stringify(body)), key, now);
  engine.afterForward(f);
  engine.onResponse(f.sessionId!, f.callIndex!, { id, usage: u });
  return { sessionId: f.sessionId!, callIndex: f.callIndex! };
}

describe('a proxied session across an edit of its history', () => {
  it('numbers calls the same in the inspector, `inspect --json` and the journal; the edit\u2019s diff shows it', () => {
    const dir = fs.mkdtempSync(join(tmpdir(), 'trimline-numbering-'));
    dirs.push(dir);
    const engine = new ProxyEngine({ strategy: 'none', journalDir: dir });
    const history: MessageParam[] = [user('read src/a.ts'), asst('It defines a.'), user('and src/b.ts, please')];
    let read = 0;
    for (let i = 0; i < 4; i++) {
      send(engine, history, i * 1000, `msg_${i}`, usage(read, 400));
      read += 400;
      history.push(asst(`answer ${i}`), user(`question ${i + 1}`));
    }
    // The client edits message 2 (a new epoch), then goes on.
    const edited = [...history];
    edited[2] = user('and src/b.ts, quickly');
    const e = send(engine, edited, 5000, 'msg_4', usage(200, 2000));
    send(engine, [...edited, asst('b is done'), user('next')], 6000, 'msg_5', usage(2200, 100));
    expect(e.sessionId).toBe('K.e2');
    expect(e.callIndex).toBe(0);

    // The inspector of the new epoch: its calls are 4 and 5, as the verdicts number them.
    const st = engine.state('K.e2')!;
    const snap = st.inspector.snapshot()!;
    expect(snap.calls.map((p) => p.call)).toEqual([4, 5]);
    expect(snap.calls.map((p) => p.verdict?.call)).toEqual([4, 5]);
    const where = expect.stringContaining('message 2') as unknown;
    expect(snap.calls[0].verdict?.miss).toMatchObject({ reason: 'messages_changed', where });
    expect(snap.callIndex).toBe(6);
    // The edit's diff: compared with call 3 (the earlier epoch's last request), by content.
    const d = st.inspector.handle({ op: 'diff', call: 4 }) as RequestDiff;
    expect(d).toMatchObject({ call: 4, previous: 3, acrossEpochs: true, changed: ['2.0'], removed: [] });
    // Only the new turn (messages 9 and 10) is added; the tools, the system block and the 8 other earlier
    // messages are unchanged.
    expect(d.added).toEqual(['9.0', '10.0']);
    expect(d.unchanged).toBe(10);
    expect(d.cacheBreakAt).toBe('2.0');
    const [from, to] = ['and src/b.ts, please', 'and src/b.ts, quickly'];
    const at = 'and src/b.ts, '.length;
    const edit = { ref: '2.0', at, context: 'and src/b.ts, ', before: 'please', after: 'quickly' };
    expect(d.edits).toEqual([{ ...edit, beforeLength: from.length, afterLength: to.length }]);
    // Within an epoch, ids still align: call 5 only appends.
    const five = { call: 5, previous: 4, added: ['11.0', '12.0'], changed: [], removed: [] };
    expect(st.inspector.handle({ op: 'diff', call: 5 })).toMatchObject(five);
    expect(() => st.inspector.handle({ op: 'diff', call: 0 })).toThrow(/no call 0/);
    engine.close();

    // The journal and `inspect --json` use the same numbers.
    const file = journalPath(dir, 'proxy-K.e2');
    expect(loadJournal(file).verdicts.map((v) => v.verdict.call)).toEqual([4, 5]);
    type PerCall = { call: number; session: string; sessionCall: number };
    type Json = { strategy: string; calls: number; fileCalls: number; perCall: PerCall[] };
    const json = JSON.parse(runInspect(file, { config: {}, json: true })) as Json;
    expect(json.perCall.map((c) => c.call)).toEqual([0, 1, 2, 3, 4, 5]);
    const inThisEpoch = json.perCall.filter((c) => c.session === 'proxy-K.e2').map((c) => c.call);
    expect(inThisEpoch).toEqual(snap.calls.map((p) => p.call));
    // Shown as sent unless a strategy is asked for; the header counts the calls as the verdict list does.
    expect(json).toMatchObject({ strategy: 'none', calls: 6, fileCalls: 2 });
    const text = runInspect(file, { config: {}, json: false });
    expect(text.split('\n')[0]).toContain("6 calls (2 in this epoch's journal)");
    expect(text.split('\n')[0]).toContain('strategy none');
    expect(text).toContain('cache verdicts: 6 calls');
    expect(text).not.toMatch(/ summarized /);
    expect(JSON.parse(runInspect(file, { strategy: 'default', config: {}, json: true })).strategy).toBe('default');
    // `inspect <journal> --serve`: the replayed calls keep the journal's numbers too.
    const numbers = journalCallNumbers(file);
    const callNumber = (i: number): number | undefined => numbers.get(i);
    const served = new ReplayInspector(loadJournalSession(file), { strategy: 'none', callNumber });
    expect(served.snapshot().calls.map((p) => p.call)).toEqual([4, 5]);
    expect(served.snapshot().callIndex).toBe(6);
    expect(served.handle({ op: 'diff', call: 5 })).toMatchObject({ call: 5, previous: 4, changed: [], removed: [] });
  });
});
