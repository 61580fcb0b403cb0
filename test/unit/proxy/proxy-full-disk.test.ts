/**
 * Issue 27, finding 3: a session that starts while the disk is full. Its journal cannot be
 * opened (the lock's owner line cannot be written); forwarding goes on, the inspector says so,
 * no temporary lock file is left, and once space returns the session's next call opens the
 * journal and catches it up, so a restart continues it with the user's pin.
 * The full disk is injected into node:fs (every file write fails with ENOSPC), not made.
 */
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProxyEngine } from '../../../src/core/proxy/proxy-engine';
import type { RequestBody } from '../../../src/core/request/types';
import type { MessageParam } from '../../../src/core/session/types';
import { journalPath, loadJournal, openJournal } from '../../../src/core/store';

const body = (messages: MessageParam[]): Buffer => Buffer.from(JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, messages } satisfies RequestBody));
const key = (id: string): Record<string, string> => ({ 'x-claude-code-session-id': id });
const dirs: string[] = [];
const journalDir = (): string => {
  const d = fs.mkdtempSync(join(tmpdir(), 'trimline-full-disk-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const enospc = (): never => {
  throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
};

/** A full disk: a new file can be created (its inode), but no byte can be written to any file. */
function fillDisk(): void {
  const realWriteFile = fs.writeFileSync.bind(fs) as (p: fs.PathOrFileDescriptor, d: string, o?: fs.WriteFileOptions) => void;
  vi.spyOn(fs, 'writeFileSync').mockImplementation(((p: fs.PathOrFileDescriptor, _d: unknown, o?: fs.WriteFileOptions) => {
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
    expect(again.state('full-1')!.entry.session.allOverlays().map((o) => o.kind)).toEqual(['pin']);
    again.close();
    expect(tempFiles(dir)).toEqual([]);
  });
});
