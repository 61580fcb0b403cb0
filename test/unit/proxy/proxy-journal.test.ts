/**
 * The proxy and its journals: a restart continues string-content sessions with their
 * overlays, one session's journal error touches no other and is retried and shown, and
 * sessions beyond the registry's bound are released (state, descriptors, locks) and come
 * back from their journal. A session started on a full disk (issue 27: injected ENOSPC, not a
 * filled disk) leaves no temporary lock file and is journaled once space returns.
 */
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProxyEngine } from '../../../src/core/proxy/proxy-engine';
import { MAX_LIVE_SESSIONS } from '../../../src/core/proxy/registry';
import type { RequestBody } from '../../../src/core/api/wire';
import type { MessageParam } from '../../../src/core/session/types';
import { journalPath, loadJournal, openJournal } from '../../../src/core/store';

const body = (messages: MessageParam[]): Buffer =>
  Buffer.from(JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, messages } satisfies RequestBody));
const key = (id: string): Record<string, string> => ({ 'x-claude-code-session-id': id });
const dirs: string[] = [];
const journalDir = (): string => {
  const d = fs.mkdtempSync(join(tmpdir(), 'trimline-proxy-journal-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** Descriptors of this process open on files under `d`. */
function fdsUnder(d: string): number {
  return fs.readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(d);
    } catch {
      return false;
    }
  }).length;
}

describe('a proxy restarted mid-session with string content', () => {
  it('continues the same session, with the user\u2019s trim and pin', () => {
    const dir = journalDir();
    const big = 'line of a big file\n'.repeat(300);
    const history: MessageParam[] = [
      { role: 'user', content: big },
      { role: 'assistant', content: 'read.' },
      { role: 'user', content: 'a short note to keep' },
    ];
    const one = new ProxyEngine({ strategy: 'none', journalDir: dir });
    one.onRequest(body(history), key('str-1'), 1000);
    const st = one.state('str-1')!;
    const [first, , third] = st.entry.session.messages;
    st.inspector.handle({ op: 'trim', blockId: first.blocks[0].id, text: 'trimmed by the user' });
    st.inspector.handle({ op: 'pin', blockId: third.blocks[0].id });
    one.close();

    const two = new ProxyEngine({ strategy: 'none', journalDir: dir });
    const f = two.onRequest(
      body([...history, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'again' }]),
      key('str-1'),
      2000,
    );
    expect(f.sessionId).toBe('str-1');
    expect(f.transformed).toBe(true);
    const sent = JSON.parse(f.body.toString('utf8')) as RequestBody;
    expect(JSON.stringify(sent.messages[0].content)).toContain('trimmed by the user');
    expect(JSON.stringify(sent.messages[0].content)).not.toContain('line of a big file\\nline of a big file');
    const session = two.state('str-1')!.entry.session;
    expect(session.messages).toHaveLength(5);
    expect(
      session
        .allOverlays()
        .map((o) => o.kind)
        .sort(),
    ).toEqual(['pin', 'trim']);
    expect(fs.existsSync(journalPath(dir, 'proxy-str-1.e2'))).toBe(false);
    two.close();
  });
});

describe('journal write errors in the proxy', () => {
  it(
    'one session\u2019s failing journal leaves the others journaled; its records are retried and the ' +
      'inspector says so',
    () => {
      const dir = journalDir();
      const warnings: string[] = [];
      const engine = new ProxyEngine({ strategy: 'none', journalDir: dir, warn: (l) => warnings.push(l) });
      const a: MessageParam[] = [{ role: 'user', content: 'session a starts' }];
      const b: MessageParam[] = [{ role: 'user', content: 'session b starts' }];
      engine.onRequest(body(a), key('sess-a'), 1);
      engine.onRequest(body(b), key('sess-b'), 2);
      // sess-a's disk fails (every record of it names it), sess-b's does not.
      const real = fs.writeSync.bind(fs) as (fd: number, b: Buffer, off: number, len: number) => number;
      vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, buf: Buffer, off: number, len: number) => {
        if (buf.includes('sess-a')) throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
        return real(fd, buf, off, len);
      }) as typeof fs.writeSync);
      for (let turn = 1; turn <= 3; turn++) {
        a.push({ role: 'assistant', content: `a reply ${turn}` }, { role: 'user', content: `a asks ${turn}` });
        b.push({ role: 'assistant', content: `b reply ${turn}` }, { role: 'user', content: `b asks ${turn}` });
        expect(engine.onRequest(body(a), key('sess-a'), 10 + turn).sessionId).toBe('sess-a');
        expect(engine.onRequest(body(b), key('sess-b'), 20 + turn).sessionId).toBe('sess-b');
      }
      expect(loadJournal(journalPath(dir, 'proxy-sess-b')).session.messages).toHaveLength(7);
      expect(loadJournal(journalPath(dir, 'proxy-sess-b')).session.calls).toHaveLength(4);
      expect(warnings.some((w) => /sess-a: journal write failed .*EIO/.test(w))).toBe(true);
      const stA = engine.state('sess-a')!;
      expect(stA.journal!.unwritten).toBeGreaterThan(0);
      expect(stA.inspector.snapshot()!.findings[0].message).toMatch(/^Journal: journal write failed.*EIO/);

      vi.restoreAllMocks();
      a.push({ role: 'assistant', content: 'a reply 4' }, { role: 'user', content: 'a asks 4' });
      engine.onRequest(body(a), key('sess-a'), 40);
      expect(stA.journal!.unwritten).toBe(0);
      expect(stA.inspector.snapshot()!.findings.some((x) => x.id === 'journal-error')).toBe(false);
      engine.close();
      const loaded = loadJournal(journalPath(dir, 'proxy-sess-a'));
      expect(loaded.issues).toEqual([]);
      expect(loaded.session.messages).toHaveLength(9);
      expect(loaded.session.calls).toHaveLength(5);
    },
  );
});

describe('a journal failing from its first write', () => {
  it('is shown by the inspector too, and caught up later', () => {
    const dir = journalDir();
    const engine = new ProxyEngine({ strategy: 'none', journalDir: dir, warn: () => undefined });
    const fsync = vi.spyOn(fs, 'fsyncSync').mockImplementation(() => {
      throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    });
    const messages: MessageParam[] = [{ role: 'user', content: 'first words' }];
    engine.onRequest(body(messages), key('sess-new'), 1);
    const st = engine.state('sess-new')!;
    expect(st.inspector.snapshot()!.findings[0].message).toMatch(/^Journal: journal write failed.*EIO/);
    fsync.mockRestore();
    messages.push({ role: 'assistant', content: 'hi' }, { role: 'user', content: 'second words' });
    engine.onRequest(body(messages), key('sess-new'), 2);
    expect(st.journalError).toBeUndefined();
    engine.close();
    expect(loadJournal(journalPath(dir, 'proxy-sess-new')).session.messages).toHaveLength(3);
  });
});

describe('a proxy meeting many sessions', () => {
  it('keeps engine state, descriptors and locks bounded, and an evicted session comes back from its journal', () => {
    const dir = journalDir();
    const engine = new ProxyEngine({ strategy: 'none', journalDir: dir });
    const first: MessageParam[] = [{ role: 'user', content: 'the first session' }];
    engine.onRequest(body(first), key('many-0'), 0);
    engine
      .state('many-0')!
      .inspector.handle({ op: 'pin', blockId: engine.state('many-0')!.entry.session.messages[0].blocks[0].id });
    for (let i = 1; i < 300; i++)
      engine.onRequest(body([{ role: 'user', content: `session ${i}` }]), key(`many-${i}`), i);
    expect(engine.state('many-0')).toBeUndefined();
    expect(engine.liveSessions).toBeLessThanOrEqual(MAX_LIVE_SESSIONS);
    expect(fdsUnder(dir)).toBeLessThanOrEqual(32);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.lock')).length).toBeLessThanOrEqual(32);
    // The first session continues: same id (no new epoch), its history and the user's pin.
    const f = engine.onRequest(
      body([...first, { role: 'assistant', content: 'hello' }, { role: 'user', content: 'more' }]),
      key('many-0'),
      1000,
    );
    expect(f.sessionId).toBe('many-0');
    const st = engine.state('many-0')!;
    expect(st.entry.session.messages).toHaveLength(3);
    expect(st.entry.session.allOverlays().map((o) => o.kind)).toEqual(['pin']);
    expect(engine.hasOverlays()).toBe(true);
    engine.close();
    expect(fdsUnder(dir)).toBe(0);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.lock'))).toEqual([]);
  }, 60_000);

  it('engine state follows the registry exactly, even for a request whose clock is behind the others', () => {
    const engine = new ProxyEngine({ strategy: 'none' });
    for (let i = 0; i < MAX_LIVE_SESSIONS; i++)
      engine.onRequest(body([{ role: 'user', content: `s ${i}` }]), key(`k-${i}`), 1000 + i);
    engine.onRequest(body([{ role: 'user', content: 'late clock' }]), key('late'), 5);
    expect(engine.sessions.byId('late')).toBeDefined();
    expect(engine.state('late')).toBeDefined();
    expect(engine.state('k-0')).toBeUndefined();
    expect(engine.liveSessions).toBe(MAX_LIVE_SESSIONS);
    expect(engine.sessions.all().every((e) => engine.state(e.id) !== undefined)).toBe(true);
    engine.close();
  });
});

const enospc = (): never => {
  throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
};

/** A full disk: a new file can be created (its inode), but no byte can be written to any file. */
function fillDisk(): void {
  const realWriteFile = fs.writeFileSync.bind(fs) as (
    p: fs.PathOrFileDescriptor,
    d: string,
    o?: fs.WriteFileOptions,
  ) => void;
  vi.spyOn(fs, 'writeFileSync').mockImplementation(((
    p: fs.PathOrFileDescriptor,
    _d: unknown,
    o?: fs.WriteFileOptions,
  ) => {
    realWriteFile(p, '', o);
    enospc();
  }) as typeof fs.writeFileSync);
  vi.spyOn(fs, 'writeSync').mockImplementation(enospc as typeof fs.writeSync);
}

const tempFiles = (dir: string): string[] => fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'));

describe('a disk full at a session\u2019s start (issue 27)', () => {
  it('leaves no temporary lock file when the lock cannot be written', () => {
    const dir = journalDir();
    fillDisk();
    expect(() => openJournal(dir, 'full')).toThrow(/ENOSPC/);
    expect(tempFiles(dir)).toEqual([]);
    expect(fs.readdirSync(dir).filter((f) => f.includes('.lock'))).toEqual([]);
  });

  it('the session is journaled once space returns, and a restart continues it with its pin', () => {
    const dir = journalDir();
    const warnings: string[] = [];
    const engine = new ProxyEngine({ strategy: 'none', journalDir: dir, warn: (l) => warnings.push(l) });
    const messages: MessageParam[] = [{ role: 'user', content: 'a session started on a full disk' }];
    fillDisk();
    const f = engine.onRequest(body(messages), key('full-1'), 1);
    expect(f.sessionId).toBe('full-1');
    expect(f.body).toEqual(body(messages));
    const st = engine.state('full-1')!;
    expect(st.journal).toBeUndefined();
    expect(st.inspector.snapshot()!.findings[0].message).toMatch(/^Journal: not journaled.*ENOSPC/);
    // Still full on the next call: one warning per reason, not one per call.
    messages.push({ role: 'assistant', content: 'first answer' }, { role: 'user', content: 'second question' });
    engine.onRequest(body(messages), key('full-1'), 2);
    expect(warnings.filter((w) => w.includes('full-1') && w.includes('not journaled'))).toHaveLength(1);
    expect(tempFiles(dir)).toEqual([]);

    vi.restoreAllMocks();
    messages.push({ role: 'assistant', content: 'second answer' }, { role: 'user', content: 'third question' });
    engine.onRequest(body(messages), key('full-1'), 3);
    expect(st.journal).toBeDefined();
    expect(st.journalError).toBeUndefined();
    expect(st.inspector.snapshot()!.findings.some((x) => x.id === 'journal-error')).toBe(false);
    st.inspector.handle({ op: 'pin', blockId: st.entry.session.messages[0].blocks[0].id });
    engine.close();

    const loaded = loadJournal(journalPath(dir, 'proxy-full-1'));
    expect(loaded.session.messages).toHaveLength(5);
    expect(loaded.session.calls).toHaveLength(3);
    expect(loaded.session.allOverlays().map((o) => o.kind)).toEqual(['pin']);
    const again = new ProxyEngine({ strategy: 'none', journalDir: dir });
    messages.push({ role: 'assistant', content: 'third answer' }, { role: 'user', content: 'fourth question' });
    expect(again.onRequest(body(messages), key('full-1'), 4).sessionId).toBe('full-1');
    expect(
      again
        .state('full-1')!
        .entry.session.allOverlays()
        .map((o) => o.kind),
    ).toEqual(['pin']);
    again.close();
    expect(tempFiles(dir)).toEqual([]);
  });
});
