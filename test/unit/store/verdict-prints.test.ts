/**
 * Request fingerprints in the journal (cache/print-delta.ts): each verdict record carries its
 * request's fingerprint as a delta against the previous one of its lineage, and loading folds
 * them back, so a restarted proxy can compare the next call with the last request sent.
 */
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestFingerprint } from '../../../src/core/cache/fingerprint';
import { encodePrint, PrintFolder } from '../../../src/core/cache/print-delta';
import { journalPath, loadJournal, openJournal, type Journal } from '../../../src/core/store';
import type { CallVerdict } from '../../../src/protocol/verdicts';

const dirs: string[] = [];
const journalDir = (): string => {
  const d = fs.mkdtempSync(join(tmpdir(), 'trimline-prints-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const TOOLS = [
  { name: 'Read', hash: 'r1' },
  { name: 'Bash', hash: 'b1' },
];
const digests = (n: number, tag = 'm'): string[] => Array.from({ length: n }, (_, i) => `${tag}${i}`);
const roles = (n: number): string[] => Array.from({ length: n }, (_, i) => (i % 2 ? 'assistant' : 'user'));
function print(n: number, over: Partial<RequestFingerprint> = {}): RequestFingerprint {
  const messages = digests(n);
  return {
    model: 'claude-sonnet-4-5',
    tools: TOOLS,
    system: ['s0'],
    messages,
    roles: roles(n),
    clientMessages: messages,
    ttlMs: 300_000,
    at: 1000 + n,
    ...over,
  };
}
const verdict = (call: number, sessionCall = call): CallVerdict => ({
  call,
  sessionCall,
  miss: null,
  local: null,
  beyondRules: false,
  missCost: 0,
  usage: { read: 100 * call, written: 10, uncached: 3 },
});

/** A conversation whose requests append, change their tools, shorten, get rewritten by Trimline, change model. */
const SEQUENCE: RequestFingerprint[] = [
  print(1),
  print(3),
  print(5, { tools: [...TOOLS, { name: 'Grep', hash: 'g1' }] }),
  print(5, {
    tools: [
      { name: 'Bash', hash: 'b1' },
      { name: 'Read', hash: 'r2' },
    ],
  }),
  print(2, { tools: TOOLS, ttlMs: undefined }),
  { ...print(6), messages: [...digests(3), 'trimmed3', ...digests(6).slice(4)], clientMessages: digests(6) },
  { ...print(8), messages: [...digests(3), 'trimmed3', ...digests(8).slice(4)], clientMessages: digests(8) },
  print(8, { model: 'claude-opus-4-5', system: ['s0', 's1'] }),
  print(1, { roles: ['assistant'] }),
];

describe('fingerprint deltas', () => {
  it('fold back to every print of a sequence: appends, a tools change, a shortened history, a Trimline rewrite, a model change', () => {
    const folder = new PrintFolder();
    let prev: { call: number; print: RequestFingerprint } | undefined;
    SEQUENCE.forEach((p, call) => {
      const delta = encodePrint(p, prev);
      folder.fold('key:K', call, JSON.parse(JSON.stringify(delta)) as typeof delta);
      expect(folder.print('key:K')).toEqual({ call, print: p });
      prev = { call, print: p };
    });
  });

  it('write only what changed: the tail of the messages, and tools, system and model only when they changed', () => {
    const d = encodePrint(print(12), { call: 4, print: print(10) });
    expect(d).toMatchObject({ base: 4, keep: 10, messages: ['m10', 'm11'], roles: ['user', 'assistant'] });
    expect(d).not.toHaveProperty('tools');
    expect(d).not.toHaveProperty('system');
    expect(d).not.toHaveProperty('model');
    expect(d).not.toHaveProperty('clientMessages');
    const tools = encodePrint(print(12, { tools: [TOOLS[1]] }), { call: 4, print: print(12) });
    expect(tools).toMatchObject({ keep: 12, messages: [], tools: [TOOLS[1]] });
    const shorter = encodePrint(print(3), { call: 4, print: print(12) });
    expect(shorter).toMatchObject({ keep: 3, messages: [] });
  });

  it('a delta that does not fit its base is ignored, never folded onto the wrong print', () => {
    const folder = new PrintFolder();
    folder.fold('L', 0, encodePrint(print(4)));
    // Call 1's record was lost: call 2's delta names call 1 as its base.
    folder.fold('L', 2, encodePrint(print(6), { call: 1, print: print(5) }));
    expect(folder.print('L')).toBeUndefined();
    // A full print starts the chain again.
    folder.fold('L', 3, encodePrint(print(7)));
    expect(folder.print('L')?.print).toEqual(print(7));
    // A delta whose digests were corrupted: its check says so.
    const bad = { ...encodePrint(print(9), { call: 3, print: print(7) }), messages: ['x7', 'm8'] };
    folder.fold('L', 4, bad);
    expect(folder.print('L')).toBeUndefined();
    // Keeping more than the base has; a record without a print (an old journal) breaks the chain too.
    folder.fold('L', 5, encodePrint(print(2)));
    folder.fold('L', 6, { ...encodePrint(print(4), { call: 5, print: print(2) }), keep: 3 });
    expect(folder.print('L')).toBeUndefined();
    folder.fold('L', 7, encodePrint(print(2)));
    folder.fold('L', 8, undefined);
    expect(folder.print('L')).toBeUndefined();
  });
});

describe('prints in the journal', () => {
  function write(j: Journal, from: number, prints: readonly RequestFingerprint[], lineage = 'key:K'): void {
    prints.forEach((p, i) => j.recordVerdict(lineage, verdict(from + i), { print: p, responseId: `msg_${from + i}` }));
  }

  it('the last request of the file comes back whole, across writers (a restart) and interleaved lineages', () => {
    const dir = journalDir();
    const one = openJournal(dir, 's1');
    write(one, 0, SEQUENCE.slice(0, 5));
    one.recordVerdict('key:K#side', verdict(100, 5), {
      print: print(1, { system: ['title'] }),
      responseId: 'msg_side',
    });
    one.close();
    // A restarted proxy writes to the same file: its first print is full, the rest deltas again.
    const two = openJournal(dir, 's1');
    write(two, 6, SEQUENCE.slice(5));
    two.close();
    const loaded = loadJournal(journalPath(dir, 's1'));
    expect(loaded.issues.filter((i) => i.line !== undefined)).toEqual([]);
    const last = SEQUENCE.length;
    expect(loaded.lastSent).toEqual({
      lineage: 'key:K',
      call: last,
      sessionCall: last,
      print: SEQUENCE[SEQUENCE.length - 1],
      responseId: `msg_${last}`,
      usage: verdict(last).usage,
    });
  });

  it('grows linearly: a long session appending two messages a call writes only the new digests', () => {
    const dir = journalDir();
    const j = openJournal(dir, 'long');
    const sizes: number[] = [];
    for (let call = 0; call < 120; call++) {
      j.recordVerdict('key:K', verdict(call), { print: print(2 * call + 1) });
      sizes.push(fs.statSync(journalPath(dir, 'long')).size);
    }
    j.close();
    const perCall = sizes.slice(1).map((s, i) => s - sizes[i]);
    expect(Math.max(...perCall.slice(10))).toBeLessThan(Math.min(...perCall.slice(10)) + 20);
    expect(loadJournal(journalPath(dir, 'long')).lastSent?.print).toEqual(print(239));
  });

  it('an old journal without prints loads as before (nothing to compare with); a corrupt print is left out with an issue', () => {
    const dir = journalDir();
    const j = openJournal(dir, 'old');
    j.recordVerdict('key:K', verdict(0));
    j.recordVerdict('key:K', verdict(1), { print: print(3), responseId: 'msg_1' });
    j.recordVerdict('key:K', verdict(2));
    j.close();
    const old = loadJournal(journalPath(dir, 'old'));
    expect(old.issues.filter((i) => i.line !== undefined)).toEqual([]);
    expect(old.verdicts.map((v) => v.verdict.call)).toEqual([0, 1, 2]);
    expect(old.lastSent).toBeUndefined();

    const file = journalPath(dir, 'old');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const rec = JSON.parse(lines[lines.length - 3]) as Record<string, unknown>;
    expect(rec.print).toBeDefined();
    rec.print = { keep: 'all', messages: 7 };
    rec.responseId = 42;
    lines[lines.length - 3] = JSON.stringify(rec);
    fs.writeFileSync(file, lines.slice(0, -2).join('\n') + '\n');
    const corrupt = loadJournal(file);
    expect(corrupt.verdicts).toHaveLength(2);
    expect(corrupt.issues.filter((i) => i.line !== undefined)).toEqual([
      { line: expect.any(Number) as number, message: 'verdict record with an invalid print and responseId; ignored' },
    ]);
    expect(corrupt.lastSent).toBeUndefined();
  });
});
