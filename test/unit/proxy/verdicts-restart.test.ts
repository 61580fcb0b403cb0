/**
 * A restarted proxy judges the first call of a continued session against the request sent
 * before the restart (its fingerprint, response id and usage come back from the journal),
 * through the real proxy engine and its journals.
 */
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProxyEngine } from '../../../src/core/proxy/proxy-engine';
import type { MessageParam } from '../../../src/core/session/types';
import { journalPath, loadJournal } from '../../../src/core/store';
import type { CallVerdict } from '../../../src/protocol/verdicts';

const dirs: string[] = [];
const journalDir = (): string => {
  const d = fs.mkdtempSync(join(tmpdir(), 'trimline-verdict-restart-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const SYSTEM = [{ type: 'text', text: 'You are a careful coding assistant.', cache_control: { type: 'ephemeral' } }];
const TOOLS = [
  {
    name: 'Read',
    description: 'Read a file',
    input_schema: { type: 'object', properties: { path: { type: 'string' } } },
  },
];
const GREP = {
  name: 'Grep',
  description: 'Search files',
  input_schema: { type: 'object', properties: { pattern: { type: 'string' } } },
};
const key = { 'x-claude-code-session-id': 'K' };
const usage = (read: number, written: number) => ({
  input_tokens: 3,
  output_tokens: 5,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: written,
});
const user = (t: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text: t }] });
const asst = (t: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text: t }] });
const HISTORY: MessageParam[] = [
  user('read src/a.ts'),
  asst('It defines a.'),
  user('and src/b.ts?'),
  asst('It defines b.'),
  user('thanks; now c?'),
];
const MINUTE = 60_000;

/** One proxied call answered with `reply`; the verdict journaled for it. */
function proxied(
  engine: ProxyEngine,
  messages: MessageParam[],
  now: number,
  reply: { id: string; usage: ReturnType<typeof usage> },
  tools: unknown[] = TOOLS,
) {
  const raw = Buffer.from(
    JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, system: SYSTEM, tools, messages }),
  );
  const f = engine.onRequest(raw, key, now);
  expect(f.sessionId).toBeDefined();
  engine.afterForward(f);
  const previousId = engine.verdicts.previousMessageId(f.sessionId!, f.callIndex!);
  let verdict: CallVerdict | undefined;
  const st = engine.state(f.sessionId!)!;
  const setVerdict = st.inspector.setVerdict.bind(st.inspector);
  st.inspector.setVerdict = (v: CallVerdict) => {
    verdict = v;
    setVerdict(v);
  };
  engine.onResponse(f.sessionId!, f.callIndex!, reply);
  return { sessionId: f.sessionId!, previousId, verdict: verdict! };
}

/** A session of two calls, then the proxy closes (t = 0 and 1 minute). */
function before(dir: string, strategy: string): void {
  const one = new ProxyEngine({ strategy, journalDir: dir });
  expect(proxied(one, HISTORY.slice(0, 1), 0, { id: 'msg_0', usage: usage(0, 2000) }).verdict.miss?.reason).toBe(
    'first_call',
  );
  expect(proxied(one, HISTORY.slice(0, 3), MINUTE, { id: 'msg_1', usage: usage(2000, 150) }).verdict.miss).toBeNull();
  one.close();
}

describe.each(['none', 'default'])('a proxy restarted mid-session (strategy %s)', (strategy) => {
  it('compares the next call with the request sent before the restart: the client appended, nothing missed', () => {
    const dir = journalDir();
    before(dir, strategy);
    const two = new ProxyEngine({ strategy, journalDir: dir });
    const next = proxied(two, HISTORY, 2 * MINUTE, { id: 'msg_2', usage: usage(2150, 120) });
    expect(next.sessionId).toBe('K');
    expect(next.previousId).toBe('msg_1');
    expect(next.verdict).toMatchObject({ call: 2, sessionCall: 2, miss: null, local: null });
    two.close();
    // And again after a second restart (the second run's journal writer began a new delta chain).
    const three = new ProxyEngine({ strategy, journalDir: dir });
    const again = proxied(three, [...HISTORY, asst('c is empty.'), user('ok')], 3 * MINUTE, {
      id: 'msg_3',
      usage: usage(2270, 80),
    });
    expect(again).toMatchObject({ previousId: 'msg_2', verdict: { call: 3, miss: null } });
    three.close();
    expect(loadJournal(journalPath(dir, 'proxy-K')).verdicts.map((v) => v.verdict.call)).toEqual([0, 1, 2, 3]);
  });

  it('idle past the TTL across the restart: ttl_expired, with the minutes since the request before it', () => {
    const dir = journalDir();
    before(dir, strategy);
    const two = new ProxyEngine({ strategy, journalDir: dir });
    const next = proxied(two, HISTORY, 8 * MINUTE, { id: 'msg_2', usage: usage(0, 2300) });
    expect(next.verdict.miss).toMatchObject({ reason: 'ttl_expired', idleMinutes: 7, missedTokens: 2150 });
    two.close();
  });

  it('tools changed right after the restart: tools_changed; history edited: messages_changed by the client', () => {
    const dir = journalDir();
    before(dir, strategy);
    const two = new ProxyEngine({ strategy, journalDir: dir });
    const tools = proxied(two, HISTORY, 2 * MINUTE, { id: 'msg_2', usage: usage(0, 2300) }, [...TOOLS, GREP]);
    expect(tools.verdict.miss).toMatchObject({
      reason: 'tools_changed',
      where: 'tools added Grep',
      missedTokens: 2150,
    });
    two.close();

    const dir2 = journalDir();
    before(dir2, strategy);
    const three = new ProxyEngine({ strategy, journalDir: dir2 });
    const edited = proxied(three, [user('read src/A.ts'), ...HISTORY.slice(1)], 2 * MINUTE, {
      id: 'msg_2',
      usage: usage(0, 2300),
    });
    expect(edited).toMatchObject({ sessionId: 'K.e2', previousId: 'msg_1' });
    expect(edited.verdict).toMatchObject({
      call: 2,
      sessionCall: 0,
      miss: { reason: 'messages_changed', changeSource: 'client', where: 'message 0 (user)' },
    });
    three.close();
  });
});

describe('a journal written before requests were journaled', () => {
  it('still continues the session; its next call is a first call, as before', () => {
    const dir = journalDir();
    before(dir, 'none');
    const file = journalPath(dir, 'proxy-K');
    const old = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .map((l) =>
        l.includes('"type":"verdict"')
          ? JSON.stringify({ ...(JSON.parse(l) as object), print: undefined, responseId: undefined })
          : l,
      )
      .join('\n');
    fs.writeFileSync(file, old);
    const two = new ProxyEngine({ strategy: 'none', journalDir: dir });
    const next = proxied(two, HISTORY, 2 * MINUTE, { id: 'msg_2', usage: usage(2150, 120) });
    expect(next).toMatchObject({
      sessionId: 'K',
      previousId: null,
      verdict: { call: 2, miss: { reason: 'first_call' } },
    });
    two.close();
  });
});
